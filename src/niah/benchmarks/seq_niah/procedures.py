"""Hand-written ordered procedures (real-logical style QA) for the judge self-test, EN and ZH.

Each procedure is a question, its steps in the only correct order, and plausible steps that are *not* part
of the answer (same topic, so a judge cannot tell them apart by topic alone).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Procedure:
    question: str
    intro: str
    steps: tuple[str, ...]
    distractors: tuple[str, ...]
    lang: str


EN_PROCEDURES = (
    Procedure("How do I cook dried pasta properly?", "Here are the steps to cook dried pasta properly:", (
        "Fill a large pot with water, about one litre for every hundred grams of pasta.",
        "Bring the water to a rolling boil over high heat.",
        "Add a generous pinch of salt to the boiling water.",
        "Drop the pasta in and stir it so the strands do not stick together.",
        "Cook it for the time printed on the packet, tasting a piece near the end.",
        "Drain the pasta, keeping a cup of the starchy cooking water for the sauce.",
    ), ("Rinse the cooked pasta under cold running water to stop it cooking.",
        "Pour a spoonful of olive oil into the water so the pot never boils over."), "en"),
    Procedure("How do I change a flat tyre on a car?", "To change a flat tyre, follow these steps:", (
        "Park on flat, solid ground and switch on the hazard lights.",
        "Loosen the wheel nuts half a turn while the wheel is still on the ground.",
        "Raise the car with the jack at the lifting point nearest the flat tyre.",
        "Remove the wheel nuts completely and pull the flat tyre off.",
        "Fit the spare wheel and tighten the nuts by hand in a star pattern.",
        "Lower the car and tighten the nuts fully with the wrench.",
    ), ("Check the tread depth of the other three tyres with a coin.",
        "Inflate the flat tyre with a foot pump to see whether it holds air."), "en"),
    Procedure("How can I back up my phone photos to a computer?", "You can back up the photos like this:", (
        "Connect the phone to the computer with a USB cable.",
        "Unlock the phone and allow the computer to access its files.",
        "Open the photo import tool on the computer.",
        "Select the photos you want and choose a destination folder.",
        "Start the import and wait until every file has been copied.",
        "Open the destination folder and check that the pictures display correctly.",
    ), ("Turn on cloud sync in the phone settings so new pictures upload automatically.",
        "Delete duplicate pictures from the phone gallery to save storage space."), "en"),
    Procedure("What are the steps to plant a young tree?", "Planting a young tree takes these steps:", (
        "Choose a sunny spot with enough room for the roots and crown to grow.",
        "Dig a hole twice as wide as the root ball and just as deep.",
        "Loosen the circling roots gently with your fingers.",
        "Set the tree in the hole so the root flare sits at ground level.",
        "Backfill with the original soil and firm it down lightly.",
        "Water the tree deeply and spread mulch around the base.",
    ), ("Prune the lower branches heavily so the trunk grows taller.",
        "Mix a bag of chemical fertiliser into the bottom of the hole."), "en"),
    Procedure("How do I make a cup of pour-over coffee?", "Make pour-over coffee in this order:", (
        "Heat fresh water to just below boiling.",
        "Grind the coffee beans to a medium-fine texture.",
        "Place a paper filter in the dripper and rinse it with hot water.",
        "Add the ground coffee and pour a little water to let it bloom for thirty seconds.",
        "Pour the rest of the water slowly in circles over the grounds.",
        "Remove the dripper when the water has drained through and serve.",
    ), ("Store the beans in an airtight jar away from sunlight.",
        "Add a pinch of salt to the grounds to reduce bitterness."), "en"),
    Procedure("How should I give first aid to someone who is choking?", "If someone is choking, do the following:", (
        "Ask the person whether they are choking and can speak or cough.",
        "Encourage them to keep coughing if they can.",
        "Stand behind them and give up to five firm back blows between the shoulder blades.",
        "If that fails, give up to five abdominal thrusts.",
        "Call the emergency number if the blockage does not clear.",
        "Keep alternating back blows and thrusts until help arrives.",
    ), ("Give the person a glass of water to wash the object down.",
        "Lay the person flat and raise their legs above their heart."), "en"),
    Procedure("How do I open a bank account online?", "Opening an account online works like this:", (
        "Pick a bank and compare the fees of its current accounts.",
        "Fill in the online application with your personal details.",
        "Upload a photo of your identity document and proof of address.",
        "Verify your identity with a short video call or selfie check.",
        "Sign the account agreement electronically.",
        "Make a first deposit to activate the account.",
    ), ("Order a replacement debit card if the first one does not arrive.",
        "Set up a standing order to pay your rent every month."), "en"),
    Procedure("How do I repot a houseplant?", "Repot a houseplant with these steps:", (
        "Water the plant a day before so the root ball holds together.",
        "Choose a new pot about two centimetres wider with a drainage hole.",
        "Put a layer of fresh potting mix in the bottom of the new pot.",
        "Tip the plant out of the old pot and tease apart the tangled roots.",
        "Place it in the new pot and fill the sides with potting mix.",
        "Water thoroughly and keep it out of direct sun for a week.",
    ), ("Spray the leaves with diluted soap to remove any insects.",
        "Cut off every yellow leaf before moving the plant outdoors."), "en"),
)

ZH_PROCEDURES = (
    Procedure("如何正确地煮意大利面？", "正确煮意大利面的步骤如下：", (
        "在大锅里装水，每一百克面大约需要一升水。",
        "用大火把水烧到完全沸腾。",
        "水开后加入一大撮盐。",
        "把面放进锅里并搅拌，防止面条粘在一起。",
        "按照包装上的时间煮面，快煮好时捞一根尝尝。",
        "把面捞出沥干，留一杯煮面水用来调酱汁。",
    ), ("把煮好的面放在冷水下冲洗，让它停止继续变软。", "在水里倒一勺橄榄油，防止锅里的水溢出来。"), "zh"),
    Procedure("汽车爆胎后怎样更换备胎？", "更换备胎可以按以下步骤进行：", (
        "把车停在平坦坚实的路面上，打开双闪警示灯。",
        "在车轮还着地时把轮胎螺母拧松半圈。",
        "用千斤顶在离爆胎最近的支撑点把车顶起来。",
        "把螺母全部拧下，取下爆掉的轮胎。",
        "装上备胎，用手按对角顺序拧上螺母。",
        "放下车身，再用扳手把螺母彻底拧紧。",
    ), ("用硬币检查另外三个轮胎的花纹深度。", "用脚踩打气筒给爆胎充气，看看它能不能保持气压。"), "zh"),
    Procedure("怎样把手机里的照片备份到电脑上？", "备份手机照片的方法如下：", (
        "用数据线把手机连接到电脑。",
        "解锁手机，并允许电脑访问手机里的文件。",
        "在电脑上打开照片导入工具。",
        "选中要备份的照片，并选择一个保存的文件夹。",
        "开始导入，等所有文件都复制完成。",
        "打开保存的文件夹，检查照片能否正常显示。",
    ), ("在手机设置里开启云同步，让新照片自动上传。", "删除相册里重复的照片，腾出存储空间。"), "zh"),
    Procedure("种植一棵小树苗需要哪些步骤？", "种植小树苗的步骤是：", (
        "选一个阳光充足、根系和树冠都有足够空间生长的地方。",
        "挖一个宽度是土球两倍、深度与土球相同的坑。",
        "用手轻轻把缠绕在一起的根须理开。",
        "把树苗放进坑里，让根颈与地面齐平。",
        "用挖出来的原土回填，并轻轻压实。",
        "给树苗浇透水，在根部周围铺上覆盖物。",
    ), ("把下面的枝条大量剪掉，让树干长得更高。", "在坑底拌入一整袋化肥。"), "zh"),
    Procedure("手冲咖啡应该怎么做？", "手冲咖啡的做法如下：", (
        "把新鲜的水烧到接近沸腾。",
        "把咖啡豆研磨成中细的粉。",
        "在滤杯里放好滤纸，用热水把滤纸润湿。",
        "倒入咖啡粉，先注入少量热水闷蒸三十秒。",
        "再沿着画圈的方式慢慢注入剩下的水。",
        "等水全部滴完后移开滤杯，即可饮用。",
    ), ("把咖啡豆装进密封罐，放在避光的地方保存。", "在咖啡粉里加一小撮盐来减轻苦味。"), "zh"),
    Procedure("有人被异物噎住时应该怎样急救？", "遇到有人被噎住时，应当这样做：", (
        "先问对方是不是被噎住了，能不能说话或咳嗽。",
        "如果对方还能咳嗽，鼓励他继续用力咳。",
        "站到他身后，在两块肩胛骨之间用力拍背最多五次。",
        "如果拍背无效，再做最多五次腹部冲击。",
        "如果异物仍未排出，立即拨打急救电话。",
        "在救护人员到达之前，交替进行拍背和腹部冲击。",
    ), ("让对方喝一杯水把异物冲下去。", "让对方平躺，把双腿抬到高于心脏的位置。"), "zh"),
    Procedure("怎样在网上开立银行账户？", "网上开户的流程如下：", (
        "选择一家银行，比较各类账户的收费标准。",
        "在网上填写开户申请和个人信息。",
        "上传身份证件照片和住址证明。",
        "通过视频通话或人脸识别完成身份验证。",
        "在线签署开户协议。",
        "存入第一笔资金来激活账户。",
    ), ("如果借记卡没有寄到，申请补寄一张新卡。", "设置每月自动转账来支付房租。"), "zh"),
    Procedure("如何给室内盆栽换盆？", "给盆栽换盆的步骤如下：", (
        "换盆前一天先浇水，让土团不容易散开。",
        "选一个比原来宽两厘米左右、底部有排水孔的新花盆。",
        "在新花盆底部铺一层新的培养土。",
        "把植物从旧盆里倒出来，把缠在一起的根理开。",
        "把植物放进新盆，在四周填满培养土。",
        "浇透水，一周内不要让它被阳光直射。",
    ), ("用稀释的肥皂水喷洒叶片，去除上面的虫子。", "把所有发黄的叶子剪掉后再搬到室外。"), "zh"),
)


def procedures(lang: str) -> tuple[Procedure, ...]:
    return ZH_PROCEDURES if lang == "zh" else EN_PROCEDURES
