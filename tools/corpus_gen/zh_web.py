"""Chinese web-style documents: neighbourhood forum threads (求助帖) and local news items (本地新闻).

Same conventions as en_web: facts drawn per document, ``## `` blocks are headings; the text is original.
"""

from __future__ import annotations

import random

from corpus_gen.engine import Filler, parse_banks, tidy_zh
from corpus_gen.zh import V, person, place, river

_NICK_A = ("爱喝茶的", "不会做饭的", "早起的", "住在河边的", "骑车上班的", "种花的", "退休的", "夜猫子", "南门口的", "老城区的",
           "快乐的", "认真的", "东街", "西关", "桥头", "一只", "半个", "胖胖的", "安静的", "慢吞吞的", "三楼的", "隔壁")
_NICK_B = ("老王", "小李", "阿姨", "大叔", "猫奴", "宝妈", "书虫", "钓鱼人", "木匠", "老师", "小鱼", "阿杰", "木子", "青柠",
           "麦穗", "石头", "橘子", "豆包", "老周", "月亮")

FORUM_TOPICS = [
    ("阳台上的月季叶子发黄", "阳台上的几盆月季", "叶子一片片发黄，还掉得厉害", ["浇水太勤", "盆土不透气", "缺肥", "晒得太狠"]),
    ("老房子墙角返潮怎么办", "家里北边卧室的墙角", "一到梅雨天就返潮发霉", ["外墙渗水", "通风不够", "防水层老化", "楼上漏水"]),
    ("电动车电池越来越不经用", "我那辆骑了三年的电动车", "充满电跑不了二十里就没电了", ["电池老化", "充电习惯不好", "胎压不足", "控制器有问题"]),
    ("孩子不爱吃早饭", "家里上三年级的孩子", "每天早上磨磨蹭蹭，一口早饭也不肯吃", ["睡得太晚", "早饭太单调", "起床太急", "晚饭吃得太饱"]),
    ("发面总是发不起来", "我和的面", "放了一晚上还是塌塌的，蒸出来的馒头又硬又小", ["酵母失效", "屋里太冷", "水温太高", "面粉受潮"]),
    ("楼下饭馆油烟太大", "我家楼下新开的饭馆", "每天中午和晚上油烟直往窗户里钻", ["排烟管道太低", "没装净化器", "风向不好", "管道没清理"]),
]

FORUM = parse_banks("""
== question
{各位邻居好|大家好|请教各位|打扰一下各位}，{潜水好久了，第一次发帖|平时只看不说，这回实在没办法了}。{我想问问|想请大家帮忙看看}$thing的事：$symptom。
{前前后后|这段时间}{试过$try1，也试过$try2|先是$try1，后来又$try2}，{都没什么用|效果都不明显}，{心里越来越着急|实在想不出别的办法了}。
{大概是$weeks个星期前开始的|从上个月开始就这样了}，{一开始没当回事|起初以为过几天就好}，{现在越来越严重|没想到拖成了这样}。{有没有遇到过的？|谁有经验可以说说？}
== reply
{我家去年也是这样|我遇到过一模一样的情况}，{后来发现是$cause|最后查出来是$cause}，{弄好以后就没再犯|解决了以后一直挺好}。
{先别急着下结论|别急着想别的办法}，{看看是不是$cause|先排除一下$cause}，{十有八九就是这个原因|多半问题出在这儿}。
{从你说的情况看|听你这么描述}，{我倾向于是$cause|我觉得像是$cause}，{不过|但是}{最好拍张照片上来|还是要实地看看才能确定}。
{同意楼上的说法|楼上说得对}，{再补充一点|我多说一句}：{$cause也要考虑进去|别忘了查一查$cause}，{很多人都忽略了|这一点最容易被漏掉}。
{我干这行$years年了|我在这方面折腾了$years年}，{说句实在话|老实讲}，{像你这种情况|这类问题}{大多是$cause|多数都和$cause有关}。
{别太担心|不用太焦虑}，{这种事挺常见的|这问题不算大}，{把$cause解决了自然就好了|慢慢调整就行}。
== followup
{谢谢大家的回复|感谢各位热心邻居}！{周末照着大家说的查了一下|昨天按楼上的办法试了试}，{果然是$cause|确实是$cause的问题}，{现在已经好多了|总算解决了}。
{更新一下进展|来汇报一下}：{排除了$cause|已经确定不是$cause}，{下一步准备|接下来打算}{请师傅上门看看|换个办法再试试}，{有结果再来说|到时候再来更新}。
""")


def _nick(rng: random.Random) -> str:
    style = rng.randrange(3)
    if style == 0:
        return rng.choice(_NICK_B) + rng.choice(_NICK_B) + str(rng.randint(1, 99))
    return rng.choice(_NICK_A) + rng.choice(_NICK_B) + (str(rng.randint(1, 99)) if style == 1 else "")


def forum(rng: random.Random) -> tuple[str, list[str]]:
    title, thing, symptom, causes = rng.choice(FORUM_TOPICS)
    users: list[str] = []
    while len(users) < 6:
        n = _nick(rng)
        if n not in users:
            users.append(n)
    facts = {"thing": thing, "symptom": symptom, "try1": rng.choice(["上网查办法", "问邻居", "换个地方"]),
             "try2": rng.choice(["买药水", "请人来看", "改习惯"]), "weeks": rng.choice(["两", "三", "四"]),
             "years": str(rng.randint(5, 30))}
    fill = Filler(rng, facts, V, tidy_zh)
    blocks = [f"{users[0]}：" + fill.paragraph(FORUM["question"], 3, "")]
    order = rng.sample(range(1, len(users)), rng.randint(3, 5))
    for n, u in enumerate(order):
        fill.facts["cause"] = rng.choice(causes)
        text = fill.paragraph(FORUM["reply"], rng.randint(1, 2), "")
        if text:
            blocks.append(f"{users[u]}：" + text)
        if n == len(order) - 1:
            fill.facts["cause"] = rng.choice(causes)
            more = fill.paragraph(FORUM["followup"], 1, "")
            if more:
                blocks.append("楼主：" + more)  # forums mark the original poster's replies so
    return title, blocks


NEWS_EVENTS = [
    ("老街改造工程完工", "老街改造", "街道办事处"), ("社区图书室搬进新址", "图书室搬迁", "文化站"),
    ("公交线路调整", "公交线路调整", "公交公司"), ("河边步道重新开放", "步道改造", "园林部门"),
    ("菜市场完成升级改造", "菜市场改造", "市场管理处"), ("老年食堂开张", "老年食堂", "社区居委会"),
]

NEWS = parse_banks("""
== lede
{本报讯|记者近日获悉|据$body消息|$weekday上午}，$town{$event|的$event}，{不少居民专程赶来看个究竟|消息一传开就引来很多人关注}。
{经过$months个月的施工|历时近$months个月}，{$topic终于画上句号|$topic总算告一段落}，{总投入约$cost万元|共花费$cost万元左右}。
== body
{据介绍|$body负责人介绍}，{这次$topic|此次$topic}{主要解决了|重点解决了}{居民反映最多的几个老问题|出行不便和环境杂乱的问题}，{前期征求意见时|在方案公示阶段}{共收到$opinions条建议|收集到$opinions份意见}。
{家住附近的$resident告诉记者|居民$resident说}：“{以前一到下雨天就发愁|过去走这段路总提心吊胆}，{现在方便多了|现在心里踏实了}。”
{也有居民提出不同看法|不过也有人有顾虑}。{在附近开店的$critic说|经营小店的$critic表示}，{施工期间生意受了不少影响|停车位比以前少了}，{希望相关部门|盼着有关方面}{多听听商户的声音|把后续管理跟上}。
{对于这些意见|对于居民的顾虑}，$body{表示|回应说}，{将在$month前|会在下一阶段}{增设便民设施|完善配套服务}，{并定期听取居民意见|同时加强日常维护}。
{$town常住人口约$pop人|这里常住人口约$pop人}，{老年居民比例较高|近年来外来务工人员逐年增多}，{这次$topic|这类改造}{被不少人看作一个好的开端|让不少老住户感到欣慰}。
{记者在现场看到|当天记者走访时看到}，{不少老人在新修的长椅上聊天|几个孩子在空地上追逐玩耍}，{旁边的早点铺也排起了长队|不远处的$river边还有人在钓鱼}。
== end
{$body表示|据悉}，{下一步还将|后续还会}{在周边推广类似做法|征求居民对二期工程的意见}，{具体安排将另行公告|有关情况本报将继续关注}。
""")


def news(rng: random.Random) -> tuple[str, list[str]]:
    event, topic, body = rng.choice(NEWS_EVENTS)
    s1, g1, _ = person(rng)
    s2, g2, _ = person(rng)
    facts = {"town": place(rng) + rng.choice(["镇", "街道", "社区"]), "event": event, "topic": topic, "body": body,
             "weekday": rng.choice(["周一", "周二", "周三", "周四", "周五"]), "months": rng.choice(["三", "五", "八", "十"]),
             "cost": str(rng.randint(30, 900)), "opinions": str(rng.randint(40, 600)), "resident": s1 + g1,
             "critic": s2 + g2, "month": rng.choice(["年底", "明年春天", "下个月", "国庆节"]),
             "pop": f"{rng.randint(1, 9)}.{rng.randint(1, 9)}万", "river": river(rng)}
    fill = Filler(rng, facts, V, tidy_zh)
    body = fill.pick(NEWS["body"], 6)  # in the bank's order: the officials answer after the complaints
    blocks = [fill.paragraph(NEWS["lede"], 2, ""), "".join(body[:2]), "".join(body[2:4]), "".join(body[4:]),
              fill.paragraph(NEWS["end"], 1, "")]
    return f"{facts['town']}{event}", [b for b in blocks if b]
