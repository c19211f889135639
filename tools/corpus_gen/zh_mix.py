"""Slot-rich Chinese web pages: amateur football match reports (业余联赛战报), hiking routes (徒步路线) and
bird-watching logs (观鸟记录).

Same idea as en_mix: short frames with several slots (names, minutes, distances, counts, sites), composed
per event (a goal, a step of a route, a day's sighting), so two sentences rarely share a long run of
characters and a document's length comes from its events. The text is original.
"""

from __future__ import annotations

import random

from corpus_gen.engine import Filler, parse_banks, tidy_zh
from corpus_gen.zh import V, hill, person, place, river

_CN_NUM = "零一二三四五六七八九十"


def _name(rng: random.Random, sex: str | None = None) -> str:
    sur, given, _sex = person(rng, sex)
    return sur + given


def _names(rng: random.Random, n: int, sex: str | None = None) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        x = _name(rng, sex)
        if x not in out:
            out.append(x)
    return out


# ------------------------------------------------------------------------------------------------ match
TEAM_B = ["队", "联队", "足球队", "青年队", "老男孩队", "雄鹰队", "猛虎队", "飞马队", "蓝狮队", "红星队"]
MATCH = parse_banks("""
== lede
{本周$weekday|$weekday下午}，{$league|业余联赛$league}在$ground{展开一场较量|迎来焦点之战}，$winner{以$score击败|$score力克|$score战胜}$loser。
{约$crowd名观众|$crowd多名球迷}{冒雨|顶着大风|在晴好的天气里}来到$ground，{看着|见证}$winner{以$score|$score}{拿下|赢下}$loser。
$loser{主场|在家门口}{以$score不敌|$score负于}$winner，{这已经是他们本赛季的第$nth场失利|积分榜上的位置更加尴尬}。
== draw
$home与$away{在$ground|周末在$ground}{战成$score平|以$score握手言和}，{双方各取一分|谁也没能拿下三分}。
{一场$score的平局|$score的比分}{对双方来说都算公平|让$home和$away各有遗憾}，{比赛在$ground进行|$ground的草皮刚刚修整过}。
== first
$scorer{第$min分钟|在开场第$min分钟}{接$assist的传中|接$assist的直塞}{头球破门|推射入网|抽射得手}，{为$team首开纪录|帮$team取得领先}。
{僵局一直维持到第$min分钟|前$min分钟双方都没有破门}，{直到|这时}$scorer{抢到$assist的传球|在禁区边缘接球}，{一脚劲射|冷静推射}{打破僵局|首开纪录}。
== goal
$scorer{在第$min分钟|于第$min分钟}{接$assist的角球|接$assist的任意球}{头球攻门得手|高高跃起顶进}，{比分变成$tally|场上比分改写为$tally}。
$assist{送出一记直塞|在右路突破后横传}，$scorer{晃过门将$keeper|面对$keeper冷静推射}，{将比分改写为$tally|打进一球，$tally}。
$assist{第$min分钟在禁区内被绊倒|第$min分钟在禁区里被对方后卫放倒}，{裁判判罚点球|主裁判果断判罚点球}，$scorer{主罚命中|一蹴而就}，{$tally|比分来到$tally}。
{对方后场一次回传失误|$keeper出击失误}{被$scorer断下|让$scorer捡到便宜}，{他轻松推空门得手|他没有浪费机会}，{第$min分钟比分变为$tally|$tally}。
{替补登场的$scorer|刚换上场不久的$scorer}{第一次触球|只用了一脚}就{打进一球|取得进球}，{那是$assist的传中|接的是$assist的低平球}，{比分$tally|比分来到$tally}。
$scorer{第$min分钟在二十米外起脚|第$min分钟禁区外一脚远射}，{皮球越过$keeper的指尖|球擦着立柱}{飞进球门|钻入网窝}，{$tally|比分$tally}。
$scorer{在第$min分钟|第$min分钟时}{抢到反弹球|补射得手}，{此前$assist的射门被$keeper扑出|$keeper没能把$assist的射门扑远}，{比分变成$tally|场上变成$tally}。
== chance
{门将$keeper|$keeper}{表现抢眼|整场忙个不停}，{把$player的射门托出横梁|扑出了$player的头球}，{帮助$team守住了球门|让$team躲过一劫}。
$player{的射门击中门柱|一脚抽射打在横梁上}，{随后$player2的补射也偏出了|紧接着$player2的头球又顶高了}，{$team只能摇头叹息|错失良机}。
{裁判|主裁判$ref}{向$player出示了黄牌|给了$player一张黄牌}，{原因是一次背后铲球|因为他和$player2发生了冲撞}。
{$player2被换下|$player2下场}，{换上的是$player|$player替补登场}，{$team想要加强进攻|$team希望扳回一城}。
{场地坑坑洼洼|风很大}，{双方都很难打出配合|传球经常失去准头}，{长传冲吊和定位球|角球和任意球}成了{主要的进攻手段|最有威胁的武器}。
$player{在门线上把球解围|门线前把球踢了出去}，{当时$keeper已经扑倒在地|$player2的射门眼看就要进了}，{$team惊出一身冷汗|这一脚救了$team}。
== quote
{$team主教练$manager赛后说|赛后$team的主教练$manager表示}：“{我觉得我们踢得更好|这场胜利是大家拼出来的}，{尤其是下半场|特别是防守}，{$scorer的进球很漂亮|零封对手让我最高兴}。”
$manager{坦言|承认}{这场球赢得并不漂亮|$team有些运气}：“{我们还有很多地方要改进|问题不少}，{但三分到手就好|不过赢球最重要}。”
$othermanager{显得很失落|有些无奈}：“{我们丢球太容易了|机会没把握住}，{在这个级别就会被惩罚|面对这样的对手不能犯这种错}。”
== table
{这场胜利让|赢下这场后，}$winner{升至积分榜第$position位|排名上升到第$position}，{距离榜首还差$gap分|和$rival同分}，$loser{仍然排在第$position2位|则跌到第$position2}。
$winner{已经连续$run场不败|取得$run场不败}，{下一轮|下个$nextday}{将客场挑战$rival|主场迎战$rival}。
$loser{$played场比赛只赢了$wins场|$played轮过后只拿到$points分}，{主教练$othermanager|他们的主教练}{希望球队尽快找回状态|盼着下一场对$rival能有起色}。
""")
WEEKDAYS = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"]


def _team(rng: random.Random) -> str:
    return place(rng) + rng.choice(TEAM_B)


def match_report(rng: random.Random) -> tuple[str, list[str]]:
    home, away = _team(rng), _team(rng)
    while away == home:
        away = _team(rng)
    squads = {home: _names(rng, 13, "m"), away: _names(rng, 13, "m")}
    g_home, g_away = rng.choice([(1, 0), (2, 1), (3, 1), (2, 0), (0, 1), (1, 2), (1, 1), (2, 2), (3, 2), (4, 1),
                                 (0, 2), (1, 3), (0, 0)])
    winner, loser = (home, away) if g_home > g_away else (away, home)
    facts = {
        "home": home, "away": away, "winner": winner, "loser": loser,
        "score": f"{max(g_home, g_away)}比{min(g_home, g_away)}",
        "league": rng.choice(["甲级组", "乙级组", "县城杯", "周末联赛", "社区杯", "企业联赛"]),
        "weekday": rng.choice(WEEKDAYS[4:]), "crowd": str(rng.randrange(60, 900, 10)),
        "ground": rng.choice([place(rng) + "体育场", place(rng) + "中学操场", "人民公园球场", place(rng) + "足球公园"]),
        "nth": str(rng.randint(3, 9)), "ref": _name(rng), "manager": _name(rng), "othermanager": _name(rng),
        "position": str(rng.randint(2, 8)), "position2": str(rng.randint(9, 16)), "gap": str(rng.randint(1, 9)),
        "rival": _team(rng), "run": str(rng.randint(3, 9)), "nextday": rng.choice(WEEKDAYS),
        "wins": str(rng.randint(1, 4)), "played": str(rng.randint(9, 18)), "points": str(rng.randint(4, 12)),
    }
    fill = Filler(rng, facts, V, tidy_zh)
    lede = fill.one(MATCH["draw"] if g_home == g_away else MATCH["lede"])
    teams = [home] * g_home + [away] * g_away
    rng.shuffle(teams)
    mins = sorted(rng.sample(range(3, 91), len(teams)))
    tally = {home: 0, away: 0}
    halves: list[list[str]] = [[], []]
    for k, (minute, team) in enumerate(zip(mins, teams, strict=True)):
        tally[team] += 1
        other = away if team == home else home
        scorer, assist = rng.sample(squads[team][1:11], 2)
        fill.facts.update({"team": team, "scorer": scorer, "assist": assist, "keeper": squads[other][0],
                           "min": str(minute), "tally": f"{tally[home]}比{tally[away]}"})
        halves[minute > 45] += fill.pick(MATCH["first" if k == 0 else "goal"], 1)
    for half in halves:
        for _ in range(rng.randint(1, 2)):
            team = rng.choice([home, away])
            other = away if team == home else home
            p1, p2 = rng.sample(squads[team][1:13], 2)
            fill.facts.update({"team": team, "player": p1, "player2": p2, "keeper": squads[team][0]})
            half.insert(rng.randint(0, len(half)), fill.one(MATCH["chance"]))
    fill.facts.update({"team": winner, "scorer": squads[winner][rng.randint(6, 10)]})
    after = [] if g_home == g_away else [fill.paragraph(MATCH["quote"], rng.randint(1, 2), ""),
                                         fill.paragraph(MATCH["table"], 2, "")]
    lineups = [f"{t}：" + "、".join(squads[t][:11]) + f"。替补：{squads[t][11]}、{squads[t][12]}。" for t in (home, away)]
    blocks = [lede, "".join(halves[0]), "".join(halves[1]), *after, "## 双方首发", *lineups]
    title = rng.choice([f"{home}{g_home}比{g_away}{away}", f"战报：{home}对阵{away}",
                        f"{winner}力克{loser}" if g_home != g_away else f"{home}与{away}战平"])
    return title, [b for b in blocks if b]


# ------------------------------------------------------------------------------------------------- walk
GATES = ["木桥", "石桥", "铁门", "竹篱笆门", "石阶", "水泥小桥", "过水石", "栅栏口"]
LANDMARKS = ["老樟树", "土地庙", "凉亭", "水塘", "废弃的砖窑", "石碑", "电线杆", "茶园", "竹林", "晒谷场", "小卖部",
             "水库大坝", "护林站", "老祠堂", "岔路口的路牌", "一排农舍", "养蜂场", "果园"]
PATHS = ["石板路", "机耕道", "田埂", "山间小路", "古道", "防火道", "水渠边的小路", "村道"]
WALK = parse_banks("""
== step
{过了$gate|走过$gate|穿过$gate}{向$dir转|往$dir拐|靠$dir走}，{上|沿着}$path{缓缓上坡|一路平走|慢慢下行}，{大约$dist|差不多$dist}。
{再走$dist左右|往前约$dist}，{留意$dir手边的$lm1|能看到$lm1}，{从它旁边经过|把它留在$dir边}，{朝$lm2的方向走|一直走到$lm2}。
{沿着$path|顺着$path}{经过$lm1|走过$lm1}，{别管$dir边的岔路|两条往$dir去的小路都不用理}，{直到走上村道|一直走到$lm2旁边}。
{在$lm1那里|到了$lm1}，{走$dir边的岔路|向$dir急转}，{进入一条窄窄的$path|踏上$path}，{$dir2边是一道矮墙|一边是茶树一边是竹子}。
{顺着$path爬$dist|沿$path往上走约$dist}，{到$lm1时|走到$lm1}，{视野一下子开阔起来|$hill就出现在眼前|地势变得平缓}。
{继续往前|一直往下走}，{$river在$dir手边|傍着$river}，{走$dist|约$dist}{后过$gate|之后跨过$gate}，{到达$lm2|就到了$lm2}。
{这一段路迹不太明显|这里的路有点难找}，{朝着山脊上的$lm1走|认准远处的$lm1}，{再往$dir下到$lm2|然后下到$lm2}。
{离开$lm1后|从$lm1出发}，{跟着红色的路标|沿着树上系的布条}{穿过$n块田|走过$n块地}，{始终贴着$dir边的田埂|一直靠着$dir边的水渠}。
{过了$gate走进$wood|跨过$gate就进了$wood}，{下雨后路面很滑|这段路常年潮湿}，{走$dist出了林子|约$dist后走出树林}，{来到$lm2|眼前是$lm2}。
== end
{原路返回到$lm1|沿来路退回到$lm1}，{再走另一条路|然后向$dir}{回到$start|下山回到$start}，{大约还有$dist|全程只剩$dist}。
{从$lm1|回到$lm1后}{再走$dist|沿$path再走$dist}{就是$start|就到了$start}，{一路都是下坡|路很好走}，{全程到此结束|这一圈就走完了}。
$start{离$lm1只有$dist|在$lm1前方约$dist}，{顺着村道下去|沿着$path走}{就到了|便是终点}。
== intro
{这条约$km公里的环线|这条$km公里左右的路线}{从$start出发|起点在$start}，{一般要走$hours|走完大约需要$hours}，{中间有一段陡坡|只有几处小坡|几乎没有爬升}。
{路线大部分|全程多半}{走的是田间小路和机耕道|在$place和$place2之间的山路上}，{能远远看到$hill|有一段沿着$river}，{风景很好|一路都不寂寞}。
{车可以停在$start|$start旁边可以停车}，{免费|收一点停车费}，{$place有几家农家饭馆|$place2的小饭馆中午有饭}，{走累了可以歇歇脚|可以顺便吃顿饭}。
{建议穿登山鞋|最好穿防滑的鞋}：{$hill脚下|靠近$river的那一段}{常年潮湿|雨后很泥泞}，{还有几处要跨水沟|还有几段石阶很滑}。
== poi
$place{原本是$river边的一个渡口|是沿着$river发展起来的}，{村里的$building至今还在|$building还保存得很好}，{就在$start附近|就在老街上}。
{天气好的时候|晴天}{站在$hill上|从$hill顶上}{能望见$place2|可以看到整条$river}，{更远处是连绵的群山|再往远是一片片稻田}。
{沿途可以留意|一路上可以找找}$bird和$bird2，{春天|初夏}{田埂边开满了$flower|路边到处是$flower}。
""")
DIRS = ["左", "右"]


def walk(rng: random.Random) -> tuple[str, list[str]]:
    pl, pl2 = place(rng), place(rng)
    while pl2 == pl:
        pl2 = place(rng)
    km = rng.randint(5, 16)
    b1, b2 = rng.sample(V["bird"], 2)
    facts = {"place": pl, "place2": pl2, "hill": hill(rng), "river": river(rng), "km": str(km),
             "hours": rng.choice(["两个小时", "两个半小时", "三个小时", "三四个小时", "大半天"]),
             "start": rng.choice([f"{pl}村口", f"{pl}小学门口", "村委会的广场", "老车站", f"{pl}的古桥"]),
             "building": rng.choice(V["building"]), "bird": b1, "bird2": b2, "flower": rng.choice(V["flower"]),
             "wood": rng.choice(["一片松林", "竹林", "杉木林", "一片杂木林"]), "n": rng.choice(["两", "三", "四", "五"])}
    fill = Filler(rng, facts, V, tidy_zh)
    blocks = [fill.paragraph(WALK["intro"], rng.randint(2, 4), ""), "## 路线"]
    seen_landmarks: set[str] = set()
    for _ in range(rng.randint(7, 10)):
        lm1, lm2 = rng.sample(LANDMARKS, 2)
        seen_landmarks.update((lm1, lm2))
        fill.facts.update({"lm1": lm1, "lm2": lm2, "gate": rng.choice(GATES), "path": rng.choice(PATHS),
                           "dir": rng.choice(DIRS), "dir2": rng.choice(DIRS),
                           "dist": rng.choice([f"{rng.randrange(100, 900, 50)}米", f"{_CN_NUM[rng.randint(1, 3)]}公里",
                                               "半公里", f"{rng.randint(2, 6)}00米"])})
        blocks += [f"1. {s}" for s in fill.pick(WALK["step"], 1)]
    # A landmark no step mentioned, so the last item does not echo the one before it.
    fill.facts["lm1"] = rng.choice([x for x in LANDMARKS if x not in seen_landmarks])
    blocks += [f"1. {s}" for s in fill.pick(WALK["end"], 1)]
    blocks += ["## 沿途看点", fill.paragraph(WALK["poi"], rng.randint(2, 3), "")]
    title = rng.choice([f"徒步路线：{pl}到{facts['hill']}", f"{pl}环线徒步（{km}公里）", f"周末短途：从{pl}走到{pl2}"])
    return title, [b for b in blocks if b]


# -------------------------------------------------------------------------------------------- sightings
SITES = ["芦苇荡", "北边的观鸟屋", "大水面", "停车场", "海堤", "浅滩", "投食点", "桤木林", "滩涂", "老果园", "河漫滩",
         "环志站", "木栈道", "稻田边"]
SIGHT = parse_banks("""
== entry
{$site|在$site}{一早|清晨|傍晚}{见到$count只$bird|记录到$bird$count只}{，对这个季节来说数量不少|，比上周多了一些|}（$observer）。
{一只$bird|单只$bird}{$clock前后|大约$clock}{从$site上空飞过|在$site短暂停留|落在$site}，{随后往$dir飞走|很快又往$dir去了}（$observer）。
$observer{报告|说}{在$site|$site那边}有$count只$bird{在觅食|在休息|沿着水边移动}，{另外还有|同时还有}{几只$bird2|至少$count2只$bird2}。
{今天的亮点|当天最好的记录}：{$site附近一只$bird|一只很配合的$bird出现在$site}，{停留了约$mins分钟|一直待到$clock}（$observer、$observer2）。
{$site|在$site}{仍有|依然有}$count只$bird，{附近的灌丛里|旁边的树上}还{听到|看到}一只$other（$observer）。
{整个上午|头两个小时里}{不断有$bird飞过$site|一直有$bird经过$site}，{合计至少$count只|加起来约$count只}（$observer）。
{昨天那只$bird|前几天的$bird}{今天没再出现|今天没找到}，{在$site仔细找了很久|绕着$site找了一圈}，{好在|不过}{看到了$count只$bird2|$count只$bird2算是补偿}（$observer）。
{$site的环志小组|环志站的志愿者}{上午|九点前}{上网$count只鸟|环志了$count只鸟}，{其中有$count2只$bird2|包括一只$bird}（$observer）。
""")


def sightings(rng: random.Random) -> tuple[str, list[str]]:
    reserve = place(rng) + rng.choice(["湿地公园", "自然保护区", "水库", "滩涂", "森林公园"])
    observers = _names(rng, 8)
    month = rng.randint(1, 12)
    fill = Filler(rng, {}, V, tidy_zh)
    blocks = [rng.choice([
        f"{reserve}近期鸟况汇总，来自访客中心的记录本和大家发来的报告，感谢每一位提供记录的鸟友。",
        f"{reserve}{month}月的最新鸟讯。记录未经审核，看到少见的种类请把照片发给记录员。",
        f"最近在{reserve}看到了什么？以下根据观鸟屋里的记录本和游客发来的消息整理。"])]
    for d in sorted(rng.sample(range(1, 29), rng.randint(8, 12)), reverse=True):
        b1, b2, b3 = rng.sample(V["bird"], 3)
        o1, o2 = rng.sample(observers, 2)
        fill.facts.update({"bird": b1, "bird2": b2, "other": b3, "count": str(rng.randint(2, 24)),
                           "count2": str(rng.randint(2, 9)), "site": rng.choice(SITES), "observer": o1,
                           "observer2": o2, "clock": f"{rng.randint(6, 18)}点{rng.choice(['', '半', '一刻'])}",
                           "dir": rng.choice(["北", "南", "东", "西", "内陆", "海上"]), "mins": str(rng.randint(5, 40))})
        blocks += [f"- {month}月{d}日：{s}" for s in fill.pick(SIGHT["entry"], 1)]
    title = rng.choice([f"{reserve}近期鸟况", f"{reserve}鸟讯", f"最新观鸟记录：{reserve}"])
    return title, blocks
