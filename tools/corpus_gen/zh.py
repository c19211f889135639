"""Chinese documents: county gazetteer entries, natural history, travel notes, stories, essays, local histories.

All text is original (written for niah and expanded by the template engine), released with niah under MIT.
"""

from __future__ import annotations

import random
import re

from corpus_gen.engine import Filler, parse_banks, tidy_zh

V: dict[str, list[str]] = {}


def _words(name: str, text: str) -> None:
    V[name] = [w.strip() for w in text.replace("\n", "，").split("，") if w.strip()]


_words("tree", "香樟，银杏，枫杨，垂柳，苦楝，乌桕，榉树，朴树，桂花树，泡桐，马尾松，水杉，樟树，皂荚，柿树，梧桐，槐树，枣树，板栗，核桃树")
_words("crop", "油菜，玉米，红薯，柑橘，棉花，花生，芝麻，大豆，莲藕，荸荠，甘蔗，板栗，枇杷，杨梅，高粱")
_words("trade", "造纸，制陶，酿酒，纺织，竹编，打铁，榨油，制茶，刺绣，木雕，染布，制伞，编席，烧砖，制香，造船，扎灯笼")
_words("bird", "白鹭，苍鹭，翠鸟，喜鹊，燕子，麻雀，斑鸠，画眉，白头鹎，戴胜，杜鹃，黄鹂，八哥，池鹭，红嘴蓝鹊，伯劳，灰喜鹊，绣眼鸟")
_words("flower", "油菜花，映山红，桃花，梨花，野蔷薇，紫云英，蒲公英，金银花")  # all flower in spring
_words("food", "米粉，腊肉，豆腐，酸菜鱼，糍粑，竹笋炒肉，红烧肉，咸鸭蛋，青团，粽子，馄饨，炒河粉，豆花，烤红薯，芋头汤，糯米饭，韭菜盒子，荷叶饭")
_words("drink", "绿茶，米酒，红茶，擂茶，桂花酒，菊花茶，糯米酒，姜茶")
_words("season", "春天，夏天，秋天，冬天")
_words("month", "正月，二月，三月，四月，五月，六月，七月，八月，九月，十月，冬月，腊月")
_words("colour", "灰褐色，暗绿色，土黄色，栗色，青灰色，赭红色，银白色，墨绿色，淡黄色，棕黑色")
_words("weather", "细雨蒙蒙，阴云低垂，天高云淡，秋阳和煦，寒风凛冽，晨雾弥漫，闷热无风，雪后初晴")
_words("sound", "远处的狗吠，屋檐下的滴水声，河边的捣衣声，卖豆腐的吆喝，祠堂里的钟声，风吹竹林的沙沙声，灶膛里柴火的噼啪声，田里的蛙鸣")
_words("smell", "稻草的气味，炊烟的味道，桂花的香气，雨后泥土的气息，新茶的清香，河水的腥气，晒谷场上的尘土味，腊肉的烟熏味")
# (occupation, the shop it opens every morning)
JOBS = [("木匠", "木工铺"), ("裁缝", "裁缝铺"), ("铁匠", "铁匠铺"), ("篾匠", "篾器铺"), ("钟表匠", "钟表铺"),
        ("理发师傅", "理发铺"), ("豆腐坊老板", "豆腐坊"), ("药铺掌柜", "药铺"), ("杂货铺老板", "杂货铺"),
        ("修鞋匠", "修鞋铺"), ("照相师傅", "照相馆")]
_words("building", "祠堂，石拱桥，文昌阁，牌坊，书院，凉亭，钟楼，古码头")
_words("festival", "元宵灯会，端午龙舟赛，中秋庙会，三月三歌会，春社，秋收节，重阳登高，腊八施粥")
_words("surname", "王，李，张，刘，陈，杨，赵，黄，周，吴，徐，孙，胡，朱，高，林，何，郭，马，罗，梁，宋，郑，谢，韩，唐，冯，董，程，曹，袁，邓，许，傅，沈，曾，彭，吕，苏，卢，蒋，蔡，丁，魏，薛，叶，余，潘，杜，戴，夏，钟，汪，田，任，姜，范，方，石，姚，谭，廖，邹，熊，陆，孔，白，崔，康，秦，江，顾，侯，孟，段，雷，钱，汤，尹，黎，易，常，乔，贺，龚，文")
_words("given_m", "建国，志强，德明，春生，明远，国栋，长福，永年，子安，怀远，书林，大山，振华，立新，少卿，云鹤，家驹，守仁，继先，文远，青山，有福，宝田，荣华，启明，正清")
_words("given_f", "秀英，桂兰，文华，玉珍，淑芬，海燕，秋菊，小梅，慧琴，静宜，兰芝，月娥，巧云，翠萍，素贞，春燕，雪梅，丽华，凤仙，佩玲，晓岚，婉清")

PLACE_A = "青 石 柳 云 白 清 桃 杏 松 梅 枫 双 长 平 安 永 宁 新 古 东 西 南 北 凤 龙 金 玉 黄 兰 竹 荷 溪 泉 湖 桂 茶 樟 碧 丰 乐 福".split()
PLACE_B = "溪 桥 湾 塘 岭 坪 口 河 川 庄 泉 坝 源 阳 林 渡 冈 峪 田 洲 山 埠 浦 滩".split()
WATER_B = "江 河 溪 水".split()
HILL_B = "山 岭 峰 岗".split()


_WATERY = set("溪河川泉湖塘渡浦滩洲湾")
_HILLY = set("山岭冈峪")


def place(rng: random.Random) -> str:
    a = rng.choice(PLACE_A)
    b = rng.choice([x for x in PLACE_B if x != a])
    return a + b


def _two(rng: random.Random, avoid: set[str]) -> str:
    """Two different name characters, neither of them one that the suffix would repeat ("溪溪")."""
    a, b = rng.sample([c for c in PLACE_A if c not in avoid], 2)
    return a + b


def river(rng: random.Random) -> str:
    return _two(rng, _WATERY) + rng.choice(WATER_B)


def hill(rng: random.Random) -> str:
    return _two(rng, _HILLY) + rng.choice(HILL_B)


def creek(rng: random.Random) -> str:
    return _two(rng, _WATERY) + "溪"


def person(rng: random.Random, sex: str | None = None) -> tuple[str, str, str]:
    sex = sex or rng.choice("mf")
    given = rng.choice(V["given_m"] if sex == "m" else V["given_f"])
    return rng.choice(V["surname"]), given, sex


CN_DIGITS = "〇一二三四五六七八九"


def cn_year(year: int) -> str:
    """1873 -> 一八七三年, 1905 -> 一九〇五年 (how dates are commonly written in prose)."""
    return "".join(CN_DIGITS[int(c)] for c in str(year)) + "年"


def tidy_zh_keep_latin(sentence: str) -> str:
    """``tidy_zh``, but a space between two Latin words stays ("Garrulax montana")."""
    sentence = re.sub(r"(?<=[A-Za-z0-9])\s+(?=[A-Za-z])", "\x00", sentence)
    return tidy_zh(sentence).replace("\x00", " ")


PLACE = parse_banks("""
== lead
$town位于$county{东北部|西南部|北部|南部|东部|西部}，地处$river{中游|下游|上游}{北岸|南岸|东岸|西岸}，距县城约$li公里，是一座{历史悠久|规模不大|风貌古朴|商贸繁盛}的{山区集镇|水乡古镇|丘陵小镇}。
$town是$county境内{历史最悠久|人口较多|保存最完整|交通最便利}的集镇之一，背靠$hill，{面临|俯瞰}$river，向来有“{鱼米之乡|山水小城|千年古渡|茶香之镇}”之称。

== overview
{全镇总面积约$area平方公里|镇域面积约$area平方公里}，{常住人口约$pop人|现有人口近$pop人}，下辖$villages个行政村。
关于镇名的由来，当地有几种说法：一说与此地的地形有关，另一说与{一位姓$family的先人|明代一位迁居于此的读书人}有关，如今已难以考证。
镇上的老街{沿河|依山}而建，青石板路蜿蜒{数百米|一里多长}，两旁多是{木结构的老铺面|粉墙黛瓦的民居}，至今仍保留着{清末民初|明清时期}的风貌。
如今，$town以{@crop和$trade|$trade和古建筑|一年一度的$festival}闻名，每逢节假日，{前来游玩的客人络绎不绝|慕名而来的外地人不在少数}。
这里{四季分明，雨量充沛|气候温和，土地肥沃}，自古就是$county{重要的粮食产区|主要的商贸集散地|有名的水陆码头}之一。

== geography
$town地势{西高东低：西部是$hill的余脉，最高处海拔约$alt米，东部则是开阔的河谷平原|北高南低：北部是$hill的余脉，最高处海拔约$alt米，南部则是开阔的冲积平原|四面环山，中间低平，最高处是镇北的$hill，海拔约$alt米}。
$river{自西向东|由北而南}{穿镇而过|绕镇而流}，河面宽约{三四十米|五六十米}，{水流平缓|清澈见底}，两岸{多|遍植}@tree和@tree。
境内另有{大小|数条}溪流注入$river，其中最大的一条名叫$creek，{发源于$hill深处|源出$hill南麓}。
这里的土壤{以红壤为主|多为黄壤|多是沙壤土}，很适合种植@crop和@crop。
登上$hill的山顶，能望见{整个|大半个}$town：{白墙灰瓦|错落的屋顶}顺着$river{铺开|排开}，再远处是{层层梯田|连绵的茶园|大片竹林}。
每到春天，{河滩上|田埂边}开满了@flower，常有@bird在{水边|田间}{觅食|栖息}。

== history_early
据{县志|族谱|地方志}记载，早在{唐代|宋代|元代}，这里就已形成村落，当时叫“$old_name”。
明代中叶，{一支|几户}姓$family的人家从北方迁来，在此{开荒种田|垦荒定居}，村落{逐渐扩大|日渐兴旺}，人口也慢慢多了起来。
清代，$town凭借{水运|河运}之便{兴起|繁荣起来}，逐渐成为{方圆百里的商埠|附近@crop和@crop的集散地}，街上店铺{林立|鳞次栉比}。
$year_fire，{一场大火烧毁了半条老街|一场洪水冲毁了镇上大半房屋}，{镇上人|乡绅们}出钱出力重建，重修的铺面{多用青砖砌成|改用砖石建造}。
{镇东|镇西}的$building{建于|始建于}$year_build，{几经修葺|历经几百年风雨}，{至今保存完好|如今仍是镇上的标志}。

== history_late
民国{初年|时期}，镇上办起了第一所新式学堂，又修了通往县城的公路，{与外界的往来日益频繁|和外面的联系越来越密切}。
抗战时期，{外地的学校和工厂|一些逃难的人家}曾迁到$town，{镇上一时人口大增|老街上多了许多外乡口音}。
新中国成立后，$town{兴修水利|修建了水库}，整治农田，{粮食产量大幅提高|收成明显增加}。
{上世纪五十年代|一九五八年}，镇上成立了供销社和卫生院，{老街上第一次有了电灯|第一次通了电话}。
改革开放以后，镇上{先后办起了几家乡镇企业|陆续建起了加工厂}，{不少|许多}年轻人{外出打工|到城里谋生}，老街一度冷清下来。

== economy
农业至今仍是$town的{主要产业|经济支柱}，主要农产品有@crop、@crop和@crop。
近年来，镇上{发展起了乡村旅游|兴起了民宿和农家乐}，不少老房子经过修缮，改成了{客栈|茶馆|民宿}，吸引了{城里的游客|外地的年轻人}。
$town的$trade手艺已有{数百年|三百多年}的历史，最兴旺的时候，镇上开着{几十家|二十多家}作坊，{产品远销省内外|货物卖到各地}。
逢农历{三、六、九|二、五、八}日，镇上都有集市，{四乡八村的|附近村子的}乡亲带着自产的{农产品|土产}前来赶集。
如今，镇上仍有{几家|少数}老作坊坚持{古法|传统}工艺，{吸引了不少慕名而来的客人|常有游客专程前来参观}。

== culture
$festival是$town{最热闹|最隆重}的节日，{届时镇上张灯结彩|到那时全镇锣鼓喧天}，男女老少{都走上街头看热闹|全都出门凑热闹}。
镇上流传着不少民间传说，其中最有名的，是关于{$hill名称由来|一位老船工|一口古井}的故事。
镇中心的古戏台始建于{清代|明代}，{每年|逢年过节}还会请戏班来唱戏，台下{总是座无虚席|常常挤满了人}。
当地的方言和县城略有不同，{一些上了年纪的人|许多老人}还能唱{古老的山歌|传统的渔歌|采茶调}。
说到吃，$town最有名的{是|要数}@food和@food，外地人来了，总要尝一尝。

== present
如今的$town既保留着{古朴的风貌|传统的格局}，又{充满|不乏}生气：老街上依旧有{打铁铺|裁缝店|杂货铺}，镇外则盖起了{新楼房|学校和医院}。
这些年，镇政府先后修缮了老街和古桥，还{疏浚了河道|修了沿河步道}。
每到{傍晚|黄昏}，{河边|桥头}总有{老人|居民}{散步|闲坐}，孩子们在{石板路上|巷子里}{追逐|嬉闹}，{一派安宁的景象|显得十分悠闲}。
不少在外{多年的|工作的}年轻人{近年|这几年}回到家乡，{开起了民宿|办起了网店|开了茶室}，给古镇带来了新的{活力|气息}。
""")

NATURE = parse_banks("""
== lead
$name（学名 $latin）是一种{常见的|较少见的|分布较广的}$kind，{主要分布在|多见于}$region_a和$region_b一带。
$name{又名|俗称}“$folk”，属于$family，是{当地|这一带}百姓{十分熟悉|非常喜爱}的$kind。

== desc_bird
成鸟体长约$size厘米，背部呈@colour，腹部{颜色较浅|偏白}，两翼有{明显的白斑|清晰的横纹}。
它的嘴{细长|短而粗壮|略向下弯}，{适于|便于}{啄食昆虫|啄食草籽|捕捉小鱼小虾}。
雌鸟和雄鸟外形相近，只是繁殖期雄鸟的{头顶|喉部}颜色更加鲜艳。
它的叫声{清脆|婉转|急促}，常在{清晨|黎明时分}站在{枝头|高处}鸣唱，老远就能听到。

== desc_tree
这种树高可达$size米，树冠{宽大|浓密|呈圆伞形}，主干{挺直|粗壮}，树皮呈@colour，老树的树皮{纵裂|粗糙}。
叶片{互生|对生}，呈{卵形|椭圆形|掌状}，边缘有{细锯齿|粗齿}，入秋后变为{金黄色|红色|橙黄色}，十分好看。
每年$month开花，花朵细小而密集，呈{淡黄色|白色|淡绿色}，带着{淡淡的|浓郁的}清香。
它的木材{质地坚硬|纹理细密}，历来被当地工匠用来{打造家具|制作农具|造船}。

== desc_fish
成鱼体长一般在$size厘米左右，身体{侧扁|细长|呈纺锤形}，背部呈@colour，腹部{银白|灰白}。
这种鱼喜欢生活在{水流较急|水质清澈}的溪流中，常躲在{石缝|水草}之间。
它主要以{水生昆虫|藻类|小虾}为食，多在{清晨|夜间}出来觅食。

== desc_plant
这是一种多年生草本植物，株高一般在$size厘米左右，茎{直立|匍匐}，叶片{细长|圆形|心形}。
花朵呈{淡紫色|黄色|白色|粉红色}，形状像{小铃铛|星星|蝴蝶}，$month前后开放，花期{约一个月|有三四周}。
它常生长在{向阳的山坡上|田埂和路边|阴湿的溪边|林下阴湿的地方}，{耐寒|耐旱}，生命力很强。

== habitat
在$region_a，$name多见于海拔$alt米以下的{山地|丘陵|河谷}，尤其偏爱靠近{水源|溪流}的地方。
据调查，{近几十年来|二十世纪后期以来}，由于{湿地减少|森林被大量砍伐}，$name的数量有所下降。
不过，随着生态保护措施的加强，一些地方的$name又{逐渐|慢慢}多了起来。
每年{春天|秋天}，在$river两岸常常可以看到$name的{身影|踪影}，这已成为当地一道{独特的|别样的}风景。

== season
一年四季，$name{各有不同的光景|都有不一样的样子}：$seasons。
每到{清明前后|谷雨时节}，乡间的老人便留意$name的{动静|消息}，拿它来推算农时。
$autumn。

== people
{当地|民间}流传着一句俗语：“$saying。”这话说明，人们很早就注意到它与{季节|农时}的关系。
旧时的文人常在{诗文|画作}里{提到|描绘}$name，把它当作{吉祥|清雅|思乡}的象征。
小时候，村里的孩子们常到{河边|山上}去{寻找|观察}$name，这是{许多人|不少人}童年最难忘的记忆之一。
老一辈人说，{从前|过去}$name{随处可见|多得很}，如今却{难得一见|不容易见到}了，说起来{颇有几分感慨|带着些许惋惜}。

== research
{二十世纪八十年代|近些年}，省里的科研人员{曾|先后}多次{来到|深入}$region_b，对$name的{习性|分布|繁殖}{进行了系统的调查|做了细致的研究}。
研究发现，$name对{环境|水质|栖息地}的变化十分敏感，可以{作为|当作}衡量当地生态{状况|质量}的{指标|标志}。
不少民间的自然爱好者也长期记录$name，这些资料为研究者提供了{宝贵的|珍贵的}数据。

== protect
为了保护$name，{县里|当地}{设立了|划定了}{几处|一片}保护小区，{禁止砍伐和开荒|不许在里面捕捞和砍伐}，还聘请村民担任巡护员。
镇上的小学还把$name{写进了|编入了}乡土教材，孩子们从小就懂得要爱护身边的生灵。
一些村子恢复了{传统的稻田和塘堰|老式的塘堰和林地}，为$name留出了生存的空间，{效果|成效}相当明显。
专家指出，保护$name，{关键在于|最要紧的是}守住它们{赖以生存|赖以栖身}的{环境|家园}，而这离不开{每一个人|当地百姓}的参与。
""")

TRAVEL = parse_banks("""
== opening
{那年|去年}$month，我和朋友$friend背着简单的{背包|行囊}，{去了|来到}{向往已久的|早就想去的}$region。
动身之前，我们只知道那一带{有山有水|山多路远}，别的{一概不知|知道得很少}，倒也觉得{轻松|自在}。
计划再简单不过：顺着$river从$t1一路走到$t_last，{坐班车，搭顺路的拖拉机|坐慢车，或者步行}，走到哪儿算哪儿。
$friend是我{大学时的同学|多年的老友}，{会说几句当地话|认得路上的许多草木}，有$fta同行，心里踏实了不少。

== arrive
到$stop的时候，{已是傍晚，夕阳斜斜地落在灰瓦上|正值午后，阳光淡淡地照在河面上|还是清晨，晨雾笼着一片屋顶}。
$stop是一座{不大的|安静的|热闹的}小镇，一条{石板街|老街}顺着$river{铺开|伸展}，街旁尽是{木板门的老铺子|青砖墙的人家}。
$stop不在大路边，我们{下了车|跟着指路牌}又走了{半个钟头|二三里地}，才{看见|望见}镇口的{牌坊|石拱桥}。
在$stop，{一条小街|一座石桥}就是全镇的中心，{理发店、杂货铺和茶馆|邮电所、供销社和卫生院}{挨在一起|一字排开}，{几步路就走完了|走一圈用不了一刻钟}。
{我们到$stop时正赶上下雨|走进$stop时雨刚停}，{青石板路湿漉漉的|屋檐下还在滴水}，{街上几乎没有人|只有几只鸡在墙根下躲雨}。
$stop{是个老码头|早年是个水陆码头}，{河边的石阶|岸上的吊脚楼}{还在|依旧}，只是{停靠的船少了|再也听不到船工的号子}。

== arrive_more
班车停在镇口的一棵老@tree下，树下蹲着几个{老人|老汉}，{抽着旱烟|吸着烟}，{好奇地|不紧不慢地}打量着我们这两个外乡人。
推开木窗，{就能|便能}望见$river，{河上偶尔漂过一两条小船|水面上不时有渔船划过}，远处是{青黛色的山影|层层叠叠的群山}。
镇上{没有几家饭馆|只有一家小卖部}，{到了晚上|天一黑}，{整条街就静了下来|家家户户都关了门}。

== host
我们住进了{一家临河的小客栈|老街上的一户人家}，主人是$host，话不多，却十分{热心|周到}。
{收留|接待}我们的是$host，$hta{六十来岁|五十出头}，{说话不紧不慢|嗓门很大}，{一见面就给我们倒了茶|硬是帮我们把背包扛上了楼}。
客栈的主人$host{正在门口择菜|正坐在门槛上补渔网}，见我们来了，{连忙起身|笑着站起来}，{把我们领进了后院的厢房|给我们收拾出两间干净的屋子}。
{在镇上打听了一圈|问了几家}，{才找到$host家|最后落脚在$host家}，$hta家的{二楼|阁楼}{空着|收拾得干干净净}，{正好给我们住|一晚只收二十块钱}。
$host{是镇上的老住户|年轻时在外面跑过运输}，{家里开着一间小旅馆|把自家的空房租给过路人}，{对这一带了如指掌|说起镇上的事来如数家珍}。
当晚我们借宿在$host家，$hta{一听说我们是走路来的|见我们一身泥水}，{赶紧烧了一锅热水|立刻端出两碗热汤}。

== meal_open
晚饭吃的是当地的@food和@food，就着一壶@drink，滋味{朴实|地道}，叫人{难忘|回味}。
{那天中午|第二天中午}，我们在{街口|桥头}的一家小饭馆吃饭，{饭馆没有菜单|店里没有招牌}，老板娘做什么，就端上什么。
$host留我们在家里吃饭，桌上摆着@food和@food，{满屋子都是香气|热气腾腾}。

== meal
邻桌的几位乡亲{大声|热热闹闹地}聊着{收成|天气|儿女的婚事}，{时不时朝我们笑笑|偶尔问我们从哪里来}。
吃完饭，主人家执意不肯多收钱，还塞给我们{几个|一包}自家做的{糍粑|米糕}。
{饭后|吃罢饭}，我们坐在门口{喝茶|乘凉}，看着{街上的人来来往往|天色一点点暗下去}。

== market_open
第二天一早，镇上逢集，附近村里的乡亲{挑着|背着}@crop、{鸡蛋|竹器|草药}赶来，整条街{一下子热闹起来|顿时挤满了人}。
{正赶上|恰好碰上}$stop{赶集的日子|逢集}，天还没亮，{街上就有人摆摊了|四乡的乡亲就挑着担子进了镇}。

== market
我在一位{老婆婆|大娘}的摊子前{买了|挑了}一包{山核桃|笋干|茶叶}，她一边{称|包}一边细细地告诉我，这些是{哪座山|哪个村}出的。
还不到晌午，集就散了，石板路上只留下{几片菜叶|一些稻草}，好像刚才的热闹从来没有过。
{集市的一角|桥头边}，{一位老师傅在修补铁锅，围了一圈看热闹的人|有人在卖自家编的竹篮，一边干活一边跟熟人打招呼}。

== walk_open
出了$stop，一条山路{穿过茶园|绕过竹林|穿过梯田}，{通往|通向}远处的$range。
{第二天|有一天}，我们{把行李寄放在$host家|起了个大早}，{沿着$river往上游走|顺着一条小路上了山}，{走了大半天|直到太阳偏西才回来}。

== walk
一路上几乎没碰见什么人，只有一位{砍柴的|放牛的|采茶的}老人，冲我们{点了点头|笑了笑}。
爬上{山顶|垭口}，眼前豁然开朗：$river像一条{银带|白练}{绕过山谷|穿过田野}，村庄{星星点点|错落有致}地散布在两岸。
下山的路上，天色忽然{暗了下来|阴了}，山间飘起了{细雨|雾}，我们只好在一座{破旧的小庙|废弃的草棚}里躲了一阵。
{半山腰|路边}有一眼山泉，{泉水清凉|水很甜}，我们{捧着喝了几口|灌满了水壶}，又坐下来歇了歇脚。

== talk_open
“你们来得正是时候，”$host一边给我们倒茶一边说，“再过些日子，{山上就下雪了|路就不好走了}。”
问起这些年镇上有什么变化，$host想了想，说：“年轻人大多到城里打工去了，逢年过节才回来。”
{晚上|夜里}，几个人围坐在火塘边，$host说起{当年发大水|年轻时修公路|那年下大雪}的往事，讲得{有声有色|绘声绘色}。

== talk
$host还{拿出|翻出}一本{旧相册|发黄的族谱}，一页一页地给我们讲，{哪张是$hta年轻时的样子|哪户人家早就搬走了}。
听说我们要去$next，$host{连连摇头|笑着说}：“那条路{不好走|弯多}，{你们得早点动身|要是下雨就别走了}。”

== night_open
夜里，我们沿着河岸走了走，河水{哗哗地|静静地}流着，对岸人家的灯火一盏一盏地{熄灭|暗下去}了。
那一夜{睡得很沉|睡得很香|睡得不太安稳}，耳边只有@sound，醒来时天已经大亮。

== night
{半夜|后半夜}下起了雨，雨点打在瓦上，{一阵紧一阵慢|滴滴答答}，我{躺着听了好久|迷迷糊糊又睡着了}。
{临睡前|睡前}，$friend坐在窗边{翻看地图|记日记}，我{望着窗外的星星|听着远处的狗吠}，{不知不觉就睡着了|很久都没有睡意}。

== onward
在$stop住了{两三天|几天}以后，我们辞别了$host，搭上了开往$next的早班车。去$next的公路顺着$river{蜿蜒|曲折}向前，窗外闪过一座座{安静的|不知名的}村庄。
从$stop到$next没有班车，我们只好步行，{$host给我们装了一袋干粮|$host一直把我们送到了村口}。{山路弯弯曲曲|路上要翻过两道山梁}，{我们走了整整一天|直到天黑才到}。
{离开$stop那天|第三天一早}，{正好有一辆拖拉机去$next拉货|$host的侄子要开车去$next}，我们便搭了顺风车，{一路颠簸|一路上说说笑笑}，{中午就到了|太阳还没落山就到了}。
我们坐船离开$stop，{小船顺流而下|机帆船突突地往下游开}，两岸的{竹林|青山}慢慢退去，{两个多钟头后|傍晚时分}到了$next。
告别$host时，$hta{塞给我们一包茶叶|站在门口挥了半天手}。去$next的路{不远|有三十多里}，我们{走走停停|一边走一边看}，{下午就到了|天擦黑才到}。

== closing
如今回想起那次旅行，印象最深的并不是哪处名胜，而是一些平常的片刻：一碗@food，{一次火塘边的闲谈|一场河边的谈话}，{一场突如其来的山雨|那场山间的大雾}。
$region并不是一个适合{走马观花|匆匆赶路}的地方，只有放慢脚步，才能慢慢体会到它的好。
我常常惦记着，哪一天还要再去一趟，看看$t1的那家{小客栈|小饭馆}还在不在，$first_host还记不记得我们。
""")

STORY = parse_banks("""
== opening
{每天清晨|天刚蒙蒙亮}，$hero{总是|照例}第一个打开$shop的门，几十年来从未间断。
$town的$season{总是来得早|向来很长}，$season_scene，巷子里行人稀少。
$hero是镇上{有名的|唯一的}$job，街坊们都认识$ta，遇到难处也喜欢来找$ta商量。
自从$ta的$relative_dead{去世|过世}以后，$hero就一个人住在{老街|河边}的那间{老屋|小屋}里，日子过得{很清静|简简单单}。
窗外，天空{阴沉沉的|灰蒙蒙的}，@sound{断断续续|时有时无}地传进屋里。

== town
隔壁{豆腐坊的老板|杂货铺的掌柜}早已{亮了灯|开了门}，一边{生火|扫地}，一边跟$hero说几句闲话。
逢集的日子，老街上挤满了挑担子的乡亲，吆喝声此起彼伏，镇上的新鲜事也就这样从街头传到了街尾。
镇上的人话不多，心里却什么都有数，$hero早就习惯了。
{傍晚|天黑以后}，街上的铺子一家接一家{关了门|上了门板}，只有{茶馆里还亮着灯|祠堂前的空地上还坐着几个纳凉的老人}。

== inciting_return
{那天下午|一天清晨}，邮递员送来一封信，信封上的笔迹$hero已经{十几年|很多年}没见过了——原来是$ta的$relative$friend{写来的|寄来的}。
信写得很短：$friend{下个月|月底}就要回来了，坐最后一班车到$dest，盼着$hero能去车站接$fta。
$hero把信{看了两遍|读了好几遍}，然后{放在桌上|搁在窗台上}，{坐在那里|站在原地}，半天没有{动|说话}。

== inciting_repair
{那天上午|一天傍晚}，{祠堂的管事|学校的老校长}{抱着|捧着}一座旧座钟走进铺子，说这钟停了好些天，怎么拨也不走。
“{$festival就要到了|过几天就是$festival}，”来人{叹了口气|搓着手}说，“少了这座钟，{镇上总觉得少了点什么|大家总觉得不对劲}。”
$hero打开后盖，看着里面{积满灰尘的|磨损发黑的}齿轮，没有多说，只点了点头，说钟里缺一根发条，得去$dest找老师傅配。

== inciting_delivery
快到{中午|晌午}时，{车站|邮局}的伙计{送来|捎来}一个包裹，上面写着$dest一户人家的地址。
原来往常{跑那条路的马车|送货的拖拉机}坏了，要过好几天才能修好，可捎话的人说，这件事耽误不得。
$hero掂了掂包裹，又望了望门外的路，便进屋换上了{雨鞋|棉袄}。

== inciting_storm
{傍晚时分|下午的时候}，$dest有人捎来口信，说$river的水已经漫到了渡口{最上面一级|第二级}石阶，河水{浑浊湍急|发黄，翻着浪}。
那边渡口拴着{几户人家的渔船|那里仅有的几条渡船}，要是不赶紧拖到高处，{一夜之间|今夜过后}就会被冲走。
$hero披上蓑衣，提起马灯，顾不上吃晚饭，就{出了门|朝$dest赶去}。

== inciting_search
料理完母亲的后事以后，$hero在{旧抽屉|衣柜}里找到一张纸条，上面写着“{一只$box|$box里的旧信}，留给后人”。
可谁也说不清那只$box放在哪儿，$hero只好从阁楼开始，一间屋一间屋地翻找。
翻了两天，一无所获，$hero想起{住在$dest的姨妈|$dest的老姨妈}也许知道些什么，便决定{走一趟|去问一问}。

== prepare
那天晚上，$hero{在屋里走来走去|在灯下坐立不安}，{拿起这个，又放下那个|翻出这样，又搁下那样}。
$ta想起很多年前，和$old_friend两个人悄悄撑船去下游，被大人{发现|知道}以后，{挨了一顿骂|狠狠地挨了一通打}。

== prepare_return
有好多话$ta想说，可在心里来回掂量了许多遍，总觉得{不对|不妥}。

== journey
去$dest的小路起初顺着$river，然后翻过一道{山梁|山坡}，$hero{小时候|年轻时}走过不知多少回。
风从{田野|河面}那边刮过来，{路边积满了雨水|沟里全是落叶}，{几只|一群}@bird从{田里|树上}惊起。
走到{岔路口|半山腰}，$hero停下来歇了歇，回头望了一眼$town，{镇子显得那么小|老街的屋顶已经看不清了}。

== meeting
走到{桥头|村口|凉亭}时，$ta遇见了{赶牛车的|守渡口的|挑担子的}$helper。
“$hero，{这样的天气|这么冷的天}还往外跑？{上哪儿去|去哪里}？”$helper{问|大声问}。
“去$dest，”$hero说，“{有点要紧事|有件急事}。”
$helper看了看天色，又瞧了瞧$hero，说：“你一个人{怎么行|可不行}，我{陪你|和你}一道去。”

== complication
没走多远，{雨就下了起来|大雨便落了下来}，山路{变得湿滑|越来越泥泞}，两人只得{躲进|钻进}路边的{草棚|破庙}里避雨。
等雨小了些，天{已经|早已}黑了下来，马灯也被风吹灭了，两人只能{摸黑|借着微光}往前走。

== resolution_return
末班车晚点了{将近一个钟头|四十来分钟}，总算进了站。下车的旅客当中，$hero一眼就认出了$friend——{头发白了，人也瘦了|鬓角花白，背也有些驼了}，可那神情一点儿没变。
两人{对视了好一会儿|站着看了半天}，谁也没有先开口。过了半晌，$friend先笑了：“你{真的|果然}来接我了。”

== resolution_repair
$dest的老师傅{从抽屉里翻出一根新发条|找出了一个合用的零件}，可回到铺子里，$hero{直到第三天深夜|一直忙到半夜}才找到真正的毛病：一颗小小的销子松动了，细得{几乎看不见|叫人发笑}。
钟摆重新摆动起来的时候，“嘀嗒”声{填满了整个铺子|回荡在小小的屋子里}，$hero坐在{板凳|椅子}上，静静地听了{好一阵|很久}。

== resolution_delivery
$dest的那户人家只有一扇窗户透着光，{开门的老太太接过包裹，双手一直在颤抖|应门的老人捧过包裹，手微微发抖}。
包裹里是{一叠旧信|几捆老照片}，{是几十年前寄出去的|许多年前从这里送走的}，如今{终于|总算}回到了主人的手里。

== resolution_storm
天快亮的时候，最后一条船也{被拖上了坝|被拉到了高处}，大家浑身湿透，却{都笑了起来|一齐笑出了声}。
第二天一早，河滩变成了白茫茫的一片，那几条船却{整整齐齐地停在坝上|好好地躺在高处}。

== resolution_search
姨妈想了半天，终于记起：那只$box{并不在阁楼上|根本不在楼上}，而是藏在{灶台|床板}底下一块松动的{砖|木板}后面。
$hero第二天一早赶回家，{撬开|掀开}那块{砖|木板}，果然摸到了那只$box，外面裹着{一层油布|几层旧布}。
$box里装着{一沓旧信|一叠家书}和几张老照片，还有一个小本子，上面{工工整整地|一笔一画地}记着家里每个孩子的{生日|名字}。

== coda
许多年过去了，每当有人说起那天的事，$hero总是淡淡一笑，说不值一提，可那一晚的{风雨|河水声}，$ta一直记得。
日子很快又回到了原来的样子，却好像有点不同了：{屋里多了些热气|$hero常爱在黄昏时到河边走走}。
有些晚上，{北风|风}从{河面|山那边}吹过来，$hero会放下手里的活，{静静地听着|默默地望着窗外}，像是在等着什么。
""")

ESSAY = parse_banks("""
== opening
小时候，{外婆|祖父|一位老邻居}常对我说，$topic其实是一门学问。那时我并不明白，到了现在才慢慢体会过来。
我爱上$topic，说来并没有什么缘故，只是{某一年|那一年}空闲多了些，便试着做了起来。
{前些年|有一阵子}，我总觉得日子过得太快，直到迷上了$topic，才{慢慢|渐渐}找回了一点{从容|节奏}。
{朋友们|家里人}{常问我|总好奇}，$topic有什么{意思|好玩的}，我{一时答不上来|想了很久也说不清}，{索性|干脆}写下这篇{短文|小文}。
关于$topic，人们已经写了{太多|许多}，我无意再去赘述，只想谈谈自己的{一点|几点}体会。

== claim
$topic首先教给人的，是{耐心|专注}：很多事情急不来，越是着急，反而越容易出错。
在我看来，$topic与其说是关于$things，不如说是一种对待{世界|生活}的态度。
我们常常把$topic当作一种{消遣|爱好}，可在从前，它原本就是过日子的一部分，并不需要刻意安排。
$topic{看似简单|说来容易}，{真要做好|要想坚持下来}，却{需要日复一日的耐心|离不开一点一滴的积累}。
$topic的乐趣大多很平常：$object，一个不被打扰的上午，一种把一件事做好的满足。

== history
过去，前人对$topic自有一套{讲究|经验}，一辈教一辈，大多靠言传身教，很少写在纸上。
{听老人说|据说}，{早年间|过去}镇上{有不少|也有几位}{痴迷|精于}$topic的人，{他们的故事至今还在流传|如今却已很少有人记得他们了}。
{古人的诗文里|旧时的笔记里}，{也常能见到|不乏}关于$topic的{记载|描写}，{字里行间透着一种闲适|寥寥几笔，自有一番趣味}。
我曾在一家旧书店里淘到过一本{几十年前|民国时}的小册子，专门谈$topic，{语气朴拙认真|文字朴实}，如今读来仍很有道理。

== personal
还记得有一回在$town，我{手里拿着|身边放着}$object，$place待了{整整一个下午|大半天}，心里{格外安静|出奇地踏实}。
{有一年冬天|那年夏天}，我{几乎每天|隔三岔五}都要$topic，{家里人笑我着了迷|邻居们都习以为常}，我自己倒{乐在其中|不以为意}。
刚开始我{做得很笨拙|弄得一团糟}，{选错了工具|买错了东西}，走了不少弯路，好几次差点半途而废。
我的老友$friend喜欢$topic已有{几十年|多年}了，$fta常说：“顺利的时候学不到东西。”这句话我如今越来越觉得有道理。

== memory
我至今还记得第一次认真尝试$topic的情形：{天有些冷|天气很热}，动作生疏，心里却{觉得样样新鲜|有一种说不出的欢喜}。
多年后我才懂得，那时的欢喜并不在于做得好坏，而在于终于找到了一件能够{全心全意|专心致志}去做的事。
那些年，日子里也有{不少|许多}烦心事，可每当{想到|做起}$topic，心情便平静下来。
有时我也会想，要是当初不曾{接触|遇到}$topic，现在的日子会是什么模样，想来想去，竟说不清楚。

== detail
$topic这件事，最要紧的是分寸：$things，样样都有讲究，马虎不得。
懂行的人一眼就能看出高下，新手却常常摸不着门道，这里面靠的全是日积月累的功夫。
$topic{讲究的不是花钱，而是心思|靠的不是工具，而是眼力和耐性}，同样是$things，到了{不同的人手里|懂行的人手里}，{就大不一样|便有了不同的味道}。
我曾向几位老师傅讨教，他们说得最多的一句话便是：“慢慢来，急不得。”

== counter
当然，也有朋友不以为然，觉得$topic不过是{浪费时间|消磨光阴}，这话倒也不无道理。
{还有人|也有人}说，$topic{不过是有钱有闲的人的玩意儿|是年纪大了才有的爱好}，{这话我不太认同|我听了只是笑笑}，却也不想争辩。
我自己也{有过厌倦|曾想过放弃}的时候，{有好几个月|有一阵子}{碰都不想碰|提不起兴致}，过了些日子，又{不知不觉地|自然而然地}回到了老路上。
说$topic永远有趣，未免不够坦白：也有枯燥乏味的时候，也会有诸事不顺的日子。

== modern
如今，生活的节奏越来越快，人们习惯了盯着手机屏幕，$topic看上去似乎有些不合时宜。
{网上|手机上}{关于$topic的视频和文章|教人$topic的东西}{多得看不过来|数不胜数}，{可我总觉得|不过在我看来}，{有些乐趣只能亲身去体会|真正的乐趣是屏幕给不了的}。
然而这些年我却注意到，喜欢$topic的年轻人反而多了起来，或许它恰恰回应了人们心里的某种{需要|渴望}。

== closing
{写到这里|写完这些}，{窗外的天已经黑了|炉子上的水正好开了}，我{放下笔|起身}，{去做一件同样平常的小事|又想起了明天要做的事}。
说到底，$topic也许并不需要什么理由。只要它能让人安心，又不妨碍别人，这就够了。
明天一早，我还会照旧拿起$object，不为求什么结果，只为让这一天过得踏实些。
""")

HISTORY = parse_banks("""
== origins
$title创办于$year_found，最初不过是几间{简陋的|低矮的}房子，是由镇上{一位名叫$founder的乡绅|一位姓$founder_last的先生}出资兴办的。
在此之前，$town一带的$activity大多由各家各户零散经营，{规模很小|场面不大}，人们早就盼着能有一个像样的去处。
{创办之初|头几年}，本钱不足，选址又{颇有争议|几经波折}，好几次险些关门。
$founder{为人精明|性子急}，{账目记得一清二楚|凡事都要亲自过问}，镇上人{既敬他三分|都说他是个能干人}，{也有人背后说他太认真|却也没少跟他争执}。

== building
老$short坐落在镇子的{东头|西头|河边}，是一座青砖砌成的院落，门前{有|种着}{一棵|两棵}高大的@tree。
院子里摆着成排的器具，墙上还挂着早年的招牌，漆色虽已斑驳，却依稀可辨。
听老辈人讲，当年$short一到{旺季|年底}，{灯火彻夜不熄|一直忙到深夜}，{街坊们都知道那是$short在赶工|路过的人常常停下来看热闹}。

== growth
到了$year_grow前后，$short已经颇具规模，$members多达{上百人|几十人}，$reach。
公路修通以后，$short{越发兴旺|更加红火}，前来{打交道|往来}的人也越来越多。
当年的$members大多是附近乡下的{年轻人|青壮年}，{吃住都在这里|食宿全在$short}，一做便是大半辈子。
{那些年|鼎盛时期}，$short{每年都要|逢年过节总会}请戏班来唱几天戏，{镇上的人|四乡的乡亲}{都来捧场|把院子挤得满满的}。

== craft
$activity这门手艺十分讲究，从备料到出货，要经过{几十道|十几道}工序，道道都马虎不得。
老师傅带徒弟，头三年大多只能干粗活，要熬上五六年，才算{出师|入了门}。
这里的$product以{用料扎实|做工讲究}著称，老主顾只认这块招牌，都说{用着放心|买着踏实}。
{旺季|最忙的时候}，$members{天不亮就开工|一天要干十几个钟头}，{手上的老茧|身上的伤疤}{一层叠一层|数也数不清}，{却没有人叫苦|可大家心里都有一股劲}。

== service
$short{有一套严格的规矩|立下了不少规矩}，{几点开门、几点关门|谁来值班、怎么记账}，{都写在一块木牌上，挂在门边|一条一条写得清清楚楚}。
{经费|开销}{大多靠乡绅捐助|一部分来自族田的收入}，{账目每月张贴一次|每一笔进出都记在账上}，{镇上的人都很信服|从来没有人说闲话}。
{逢年过节|每到年底}，$short{都要请镇上的老人来吃一顿饭|总会把一年的情形向街坊们交代一遍}，{这个规矩一直延续了几十年|大家都觉得理所应当}。
$members{大多|多半}是本地人，{彼此知根知底|谁家有事都会搭把手}，{新来的人|年轻后生}{跟着老人学|从打杂做起}，{慢慢|渐渐}也就{上了手|站稳了脚跟}。

== people_first
说起$short的老人，镇上人最先想起的是$person，$pta{十几岁|少年时}就来到$short，一直干到退休。

== people
晚年的$person常跟年轻人讲起过去的日子：天不亮就起身，冬天手上冻得裂开口子，可{师徒之间|大家}感情很深。
{镇上|县里}的{文化馆|地方志办公室}曾{请$person口述|为$person录音}，{整理出|记下了}{好几万字|厚厚一本}的回忆，如今{存放在县档案馆|还能在图书馆里借到}。

== trouble
抗战那几年，{年轻的$members大多离开了|不少人逃难去了外地}，$short{只靠几位老人|全凭几个老人和妇女}{撑着|勉强维持}，{好歹没有关门|总算熬了过来}。
$year_trouble，一场{大火|洪水}几乎{毁掉|吞没}了大半个$short，几十年的心血{毁于一旦|付之东流}，全靠乡亲们{出钱出力|齐心协力}，才慢慢恢复过来。
二十世纪六七十年代，随着{机器生产|大工厂}的兴起，$short的日子{一天不如一天|每况愈下}，最终在$year_close{停办|关了门}。

== today
如今，$short的旧址已经改成了{陈列馆|文化站|茶馆}，门口挂着一块牌子，讲述着这里的往事。
近年，{几位老师傅|一些热心人}又{拾起|恢复}了{老手艺|老规矩}，每逢{节假日|周末}，都有{游客|学生}前来参观。
$short的故事，在很大程度上也正是$town自己的缩影：兴起、繁荣、衰落，又迎来了今天的新生。
{镇上的老人|上了年纪的人}说起$short，{总爱说一句|常常感叹}：“{那时候的东西，都是真材实料|那时候的人，做事实在}。”
""")

# kind: (description bank, bases, modifiers, size range, months it flowers or breeds, its four seasons, what it
# does in autumn, a country saying). Each base comes with its family and genus, so a 鳑鲏 is never put in 鳅科.
ZH_KINDS_NATURE = {
    "鸟": ("desc_bird", {"噪鹛": ("噪鹛科", "Garrulax"), "鹎": ("鹎科", "Pycnonotus"), "雀": ("雀科", "Passer"),
                        "柳莺": ("柳莺科", "Phylloscopus"), "鹡鸰": ("鹡鸰科", "Motacilla"), "鸫": ("鸫科", "Turdus"),
                        "鹟": ("鹟科", "Ficedula"), "鹀": ("鹀科", "Emberiza")},
          ["灰头", "白眉", "黄腹", "红嘴", "褐胸", "山", "溪", "竹林", "长尾", "斑翅"], (12, 40), ["三月", "四月"],
          "春天最为活跃，夏天隐在浓荫深处，入冬以后便少见了",
          "入秋以后，天气转凉，成群的$name便渐渐少见了，要等到来年开春才重新露面",
          "$name叫三声，天要落雨"),
    "树": ("desc_tree", {"槭": ("槭树科", "Acer"), "栎": ("壳斗科", "Quercus"), "樟": ("樟科", "Cinnamomum"),
                        "楠": ("樟科", "Phoebe"), "椴": ("椴树科", "Tilia"), "桦": ("桦木科", "Betula"),
                        "柳": ("杨柳科", "Salix")},
          ["青", "红叶", "毛", "山", "水", "细叶", "大叶", "岩"], (6, 30), ["三月", "四月", "五月"],
          "春天新叶嫩绿，夏天浓荫蔽日，秋天满树金黄，冬天只剩下光秃秃的枝干",
          "入秋以后，$name的叶子一片片变黄，风一吹，落满了山路",
          "$name发新芽，下田种早秧"),
    "鱼": ("desc_fish", {"鳅": ("鳅科", "Cobitis"), "鲃": ("鲤科", "Barbodes"), "鲴": ("鲤科", "Xenocypris"),
                        "鲌": ("鲤科", "Culter"), "鱊": ("鲤科", "Acheilognathus"), "鳑鲏": ("鲤科", "Rhodeus")},
          ["花", "石", "溪", "黄尾", "银", "宽鳍", "长须"], (6, 25), ["三月", "四月", "五月"],
          "春夏之交最为活跃，入冬以后便躲进深潭，很少露面",
          "入秋以后，水温降低，$name便游到深潭里过冬",
          "$name上了滩，插秧莫等闲"),
    "草本植物": ("desc_plant", {"报春": ("报春花科", "Primula"), "龙胆": ("龙胆科", "Gentiana"),
                              "堇菜": ("堇菜科", "Viola"), "凤仙": ("凤仙花科", "Impatiens"),
                              "虎耳草": ("虎耳草科", "Saxifraga"), "风铃草": ("桔梗科", "Campanula"),
                              "马先蒿": ("列当科", "Pedicularis")},
                ["高山", "岩生", "紫花", "黄花", "溪畔", "林下", "细叶"], (5, 60), ["三月", "四月", "五月", "六月"],
                "春天抽出新叶，花开时节最为惹眼，入冬以后地上部分便枯萎了",
                "入秋以后，$name结出细小的种子，随风散落在四周",
                "$name开了花，家家忙种瓜"),
}
LATIN_E = "montana sinensis rivularis pallida silvatica minor maculata borealis aquatica alpina rupestris".split()
TOPICS = [
    ("散步", "小路、田埂和老桥", "在田埂上", "一双旧布鞋"), ("读旧书", "旧书、书签和泛黄的书页", "在旧书店里", "一本旧书"),
    ("做饭", "锅碗瓢盆和灶台", "在厨房里", "一口铁锅"), ("写信", "信纸、邮票和钢笔", "在书桌前", "一支钢笔"),
    ("种菜", "菜畦、锄头和种子", "在菜园里", "一把锄头"), ("听雨", "屋檐、雨声和青苔", "在窗前", "一杯热茶"),
    ("骑自行车", "车铃、车链和乡间小路", "在河堤上", "一辆旧自行车"), ("喝茶", "茶叶、茶壶和茶杯", "在茶馆里", "一把紫砂壶"),
    ("钓鱼", "鱼竿、浮漂和河湾", "在河边", "一根竹鱼竿"), ("写毛笔字", "笔墨纸砚", "在案前", "一支毛笔"),
    ("逛集市", "摊子、秤杆和吆喝声", "在集市上", "一只竹篮"), ("看星星", "星座、月亮和夜风", "在晒谷场上", "一张星图"),
    ("修补旧物", "线团、胶水和螺丝", "在小院里", "一只工具箱"), ("爬山", "石阶、山风和松树", "在山路上", "一根竹杖"),
    ("养花", "花盆、泥土和花苗", "在阳台上", "一把小铲子"), ("坐慢火车", "站台、车窗和时刻表", "在绿皮火车上", "一张车票"),
    ("剪纸", "红纸、剪刀和花样", "在灯下", "一把小剪刀"), ("拍照", "镜头、光线和构图", "在街角", "一台旧相机"),
    ("下棋", "棋盘、棋子和对手", "在树荫下", "一副象棋"), ("观鸟", "望远镜、图鉴和树林", "在湖边", "一副望远镜"),
    ("做木工", "刨子、锯子和木料", "在工棚里", "一把刨子"), ("晒太阳", "竹椅、屋檐和冬日的午后", "在墙根下", "一把竹椅"),
    ("腌咸菜", "坛子、粗盐和芥菜", "在灶间", "一只陶坛"), ("放风筝", "竹篾、棉线和春风", "在河滩上", "一只纸风筝"),
]
# (title word, short name, the people in it, what it did, what it made, whether it made goods)
HISTORY_KINDS = [
    ("造纸坊", "纸坊", "纸工", "造纸", "竹纸", True), ("酒坊", "酒坊", "酒工", "酿酒", "米酒和高粱酒", True),
    ("陶窑", "窑场", "窑工", "烧陶", "缸、罐和碗碟", True), ("茶厂", "茶厂", "制茶师傅", "制茶", "绿茶和红茶", True),
    ("染坊", "染坊", "染匠", "染布", "蓝印花布", True), ("油坊", "油坊", "榨油师傅", "榨油", "菜籽油和茶油", True),
    ("铁匠铺", "铁匠铺", "铁匠", "打铁", "锄头、镰刀和菜刀", True), ("竹器社", "竹器社", "篾匠", "编竹器", "竹篮、竹席和竹椅", True),
    ("酱园", "酱园", "酱工", "酿酱", "酱油和腌菜", True),
    ("书院", "书院", "先生和学子", "讲学", "", False), ("中药铺", "药铺", "郎中和伙计", "抓药行医", "", False),
    ("义渡", "渡口", "船工", "摆渡", "", False), ("救火会", "救火会", "会员", "救火", "", False),
]
FOLK = {
    "鸟": ["报春鸟", "雨雀", "水鸡子", "山姑娘", "青衣郎"],
    "树": ["铁杆子", "红伞树", "风铃木", "老寿星"],
    "鱼": ["石缝鱼", "花姑娘", "沙钻子", "溪里虎"],
    "草本植物": ["映山仙", "紫铃铛", "山姑娘花", "星星草"],
}


def _latin(genus: str, epithet: str) -> str:
    """Binomial with the (feminine) epithet agreeing with the genus: Turdus montanus, Acer montanum."""
    if epithet.endswith("a"):
        if genus == "Acer":
            epithet = epithet[:-1] + "um"
        elif genus.endswith(("us", "er")):
            epithet = epithet[:-1] + "us"
    return f"{genus} {epithet}"


def _population(n: int) -> str:
    """21000 -> 2.1万, 8000 -> 8000 (how Chinese prose writes a town's population)."""
    return f"{n / 10000:g}万" if n >= 10000 else str(n)


def _place_doc(rng: random.Random) -> tuple[str, list[str]]:
    s, g, _ = person(rng, "m")
    facts = {
        "town": place(rng) + "镇", "county": place(rng) + "县", "river": river(rng),
        "hill": hill(rng), "creek": creek(rng), "old_name": place(rng), "family": rng.choice(V["surname"]),
        "li": str(rng.randint(8, 60)), "area": str(rng.randint(30, 180)), "pop": _population(rng.randint(6, 60) * 1000),
        "villages": str(rng.randint(6, 28)), "alt": str(rng.randint(4, 16) * 100),
        "year_fire": cn_year(rng.randint(1860, 1910)), "year_build": rng.choice(["明代", "清代", "清朝乾隆年间"]),
        "trade": rng.choice(V["trade"]), "festival": rng.choice(V["festival"]),
        "building": rng.choice(V["building"]), "founder": s + g,
    }
    fill = Filler(rng, facts, V, tidy_zh)
    paragraphs = [fill.one(PLACE["lead"]) + fill.paragraph(PLACE["overview"], rng.randint(2, 4), "")]
    for bank, k in [("geography", (3, 5)), ("history_early", (3, 5)), ("history_late", (3, 5)),
                    ("economy", (3, 4)), ("culture", (3, 4)), ("present", (2, 4))]:
        paragraphs.append(fill.paragraph(PLACE[bank], rng.randint(*k), ""))
    return facts["town"], paragraphs


def _nature_doc(rng: random.Random) -> tuple[str, list[str]]:
    kind = rng.choice(sorted(ZH_KINDS_NATURE))
    desc, bases, mods, (lo, hi), months, seasons, autumn, saying = ZH_KINDS_NATURE[kind]
    base = rng.choice(sorted(bases))
    family, genus = bases[base]
    name = rng.choice(mods) + base
    facts = {
        "name": name, "kind": kind, "latin": _latin(genus, rng.choice(LATIN_E)), "family": family,
        "region_a": place(rng) + rng.choice(["山区", "丘陵", "盆地"]), "region_b": place(rng) + rng.choice(["流域", "河谷", "林区"]),
        "folk": rng.choice(FOLK[kind]), "size": str(rng.randint(lo, hi)), "alt": str(rng.randint(5, 20) * 100),
        "river": river(rng), "month": rng.choice(months), "seasons": seasons, "autumn": autumn, "saying": saying,
    }
    fill = Filler(rng, facts, V, tidy_zh_keep_latin)
    paragraphs = [fill.one(NATURE["lead"]) + fill.paragraph(NATURE[desc], 1, "")]
    for bank, k in [(desc, (2, 3)), ("habitat", (3, 4)), ("season", (2, 3)), ("people", (3, 4)),
                    ("research", (2, 3)), ("protect", (3, 4))]:
        text = fill.paragraph(NATURE[bank], rng.randint(*k), "")
        if text:
            paragraphs.append(text)
    return name, paragraphs


def _set_host(fill: Filler, rng: random.Random) -> None:
    female = rng.random() < 0.5
    fill.facts["host"] = rng.choice(V["surname"]) + ("大婶" if female else "大叔")
    fill.facts["hta"] = "她" if female else "他"


def _travel_doc(rng: random.Random) -> tuple[str, list[str]]:
    towns: list[str] = []
    n_stops = rng.randint(3, 5)
    while len(towns) < n_stops:
        town = place(rng) + "镇"
        if town not in towns:
            towns.append(town)
    fs, fg, fsex = person(rng)
    facts = {
        "region": place(rng) + rng.choice(["山区", "河谷", "古道", "水乡"]), "river": river(rng), "range": hill(rng),
        "t1": towns[0], "t_last": towns[-1], "month": rng.choice(V["month"]), "friend": fg,
        "fta": "他" if fsex == "m" else "她",
    }
    fill = Filler(rng, facts, V, tidy_zh)
    paragraphs = [fill.paragraph(TRAVEL["opening"], 3, "")]
    days = ["meal", "market", "walk", "talk", "night"]
    for i, stop in enumerate(towns):
        fill.facts["stop"] = stop
        fill.facts["next"] = towns[i + 1] if i + 1 < len(towns) else "县城"  # the way home
        _set_host(fill, rng)
        if i == 0:
            fill.facts["first_host"] = fill.facts["host"]
        arrival = [fill.one(TRAVEL["arrive"]), fill.one(TRAVEL["host"])] + fill.pick(
            TRAVEL["arrive_more"], rng.randint(0, 1))
        paragraphs.append("".join(arrival))
        for bank in sorted(rng.sample(days, 2), key=days.index):
            opener = fill.pick(TRAVEL[f"{bank}_open"], 1)
            if opener:
                paragraphs.append("".join(opener + fill.pick(TRAVEL[bank], rng.randint(1, 2))))
        if i + 1 < len(towns):
            paragraphs.append(fill.one(TRAVEL["onward"]))
    paragraphs.append(fill.paragraph(TRAVEL["closing"], rng.randint(2, 3), ""))
    title = rng.choice([f"{facts['region']}纪行", f"沿{facts['river']}而行", f"从{towns[0]}到{towns[-1]}",
                        f"{facts['month']}，在{facts['region']}", f"{facts['region']}散记"])
    return title, paragraphs


def _story_doc(rng: random.Random) -> tuple[str, list[str]]:
    plot = rng.choice(["return", "repair", "delivery", "storm", "search"])
    s, g, sex = person(rng)
    fs, fg, fsex = person(rng)
    hs, hg, _ = person(rng)
    job, shop = ("钟表匠", "钟表铺") if plot == "repair" else rng.choice(JOBS)
    season, season_scene = rng.choice([("冬天", "屋顶上时常蒙着一层霜"), ("秋天", "河面上常常笼着一层薄雾"),
                                       ("雨季", "雨一下就是好几天"), ("春天", "河边的柳树早早就绿了")])
    relative = rng.choice(["哥哥", "弟弟", "表哥", "发小", "老同学"] if fsex == "m"
                          else ["姐姐", "妹妹", "表姐", "发小", "老同学"])
    hero = s + g if rng.random() < 0.5 else ("老" + s if rng.random() < 0.5 else g)
    facts = {
        "hero": hero, "ta": "他" if sex == "m" else "她", "town": place(rng) + "镇",
        "dest": place(rng) + rng.choice(["村", "镇"]), "river": river(rng), "season": season,
        "season_scene": season_scene, "job": job, "shop": shop, "friend": fs + fg, "fta": "他" if fsex == "m" else "她",
        "relative": relative,
        "relative_dead": "母亲" if plot == "search" else rng.choice(["老伴", "母亲", "父亲"]),
        "helper": rng.choice(["老" + hs, hs + hg]), "festival": rng.choice(V["festival"]),
        "box": rng.choice(["木匣", "铁皮箱"]),
        # A shared childhood memory: with the friend where the friend is in the story, otherwise with a sibling.
        "old_friend": fs + fg if plot == "return" else rng.choice(["哥哥", "姐姐", "表弟", "一个发小"]),
    }
    fill = Filler(rng, facts, V, tidy_zh)
    paragraphs = [
        fill.paragraph(STORY["opening"], rng.randint(3, 4), ""),
        fill.paragraph(STORY["town"], 3, ""),
        fill.paragraph(STORY[f"inciting_{plot}"], 3, ""),
    ]
    if plot in ("return", "repair", "search"):  # an urgent errand leaves no evening for brooding
        prepare = fill.pick(STORY["prepare"], 2)
        if plot == "return":
            prepare.append(fill.one(STORY["prepare_return"]))
        paragraphs.append("".join(prepare))
    paragraphs.append(fill.paragraph(STORY["journey"], 3, ""))
    paragraphs.extend(fill.pick(STORY["meeting"], 4))
    paragraphs.append(fill.paragraph(STORY["complication"], 2, ""))
    paragraphs.extend(fill.pick(STORY[f"resolution_{plot}"], 3))
    paragraphs.append(fill.paragraph(STORY["coda"], rng.randint(2, 3), ""))
    title = rng.choice([f"{facts['dest']}之行", f"{facts['season']}的{facts['river']}", f"{facts['hero']}的一天",
                        "那一夜", "回乡", f"{facts['town']}旧事"])
    return title, paragraphs


def _essay_doc(rng: random.Random) -> tuple[str, list[str]]:
    topic, things, place_, obj = rng.choice(TOPICS)
    fs, fg, fsex = person(rng)
    facts = {"fta": "他" if fsex == "m" else "她", "topic": topic, "things": things, "place": place_,
             "object": obj, "friend": fs + fg, "town": place(rng) + "镇"}
    fill = Filler(rng, facts, V, tidy_zh)
    paragraphs = []
    for bank in ["opening", "claim", "memory", "history", "detail", "personal", "counter", "modern", "closing"]:
        text = fill.paragraph(ESSAY[bank], rng.randint(2, 3), "")
        if text:
            paragraphs.append(text)
    return rng.choice([f"说{topic}", f"{topic}杂记", f"关于{topic}", f"{topic}小记"]), paragraphs


def _history_doc(rng: random.Random) -> tuple[str, list[str]]:
    inst, short, members, activity, product, makes_goods = rng.choice(HISTORY_KINDS)
    town = place(rng) + "镇"
    fs, fg, _ = person(rng, "m")
    ps, pg, psex = person(rng)
    year = rng.randint(1820, 1885)
    facts = {
        "title": f"{town}{inst}", "short": short, "members": members, "activity": activity, "product": product,
        "town": town, "founder": fs + fg, "founder_last": fs, "person": ps + pg, "pta": "他" if psex == "m" else "她",
        "year_found": cn_year(year), "year_grow": cn_year(year + rng.randint(20, 40)),
        "year_trouble": cn_year(rng.randint(1946, 1956)), "year_close": cn_year(rng.randint(1962, 1985)),
        # Goods go out to other places; a service draws people in.
        "reach": "$product{远销省内外|卖到了四乡八镇}" if makes_goods else "{名声传遍了附近几个县|四乡八镇的人都慕名而来}",
    }
    fill = Filler(rng, facts, V, tidy_zh)
    paragraphs = []
    work = "craft" if makes_goods else "service"
    for bank in ["origins", "building", work, "growth", "people", "trouble", "today"]:
        first = fill.pick(HISTORY["people_first"], 1) if bank == "people" else []  # introduces the person
        text = "".join(first + fill.pick(HISTORY[bank], rng.randint(2 if first else 3, 4)))
        if text:
            paragraphs.append(text)
    return facts["title"], paragraphs


GENRES = {
    "place": _place_doc,
    "nature": _nature_doc,
    "travel": _travel_doc,
    "story": _story_doc,
    "essay": _essay_doc,
    "history": _history_doc,
}
