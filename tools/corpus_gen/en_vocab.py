"""English vocabularies and name generators for the procedurally written documents."""

from __future__ import annotations

import random

from corpus_gen.engine import parse_bank

V: dict[str, list[str]] = {}


def _words(name: str, text: str) -> None:
    V[name] = [w.strip() for w in text.replace("\n", ",").split(",") if w.strip()]


_words("tree", """oak, ash, beech, alder, willow, hornbeam, lime, sycamore, birch, rowan, hazel, yew, elm,
sweet chestnut, black poplar, field maple, holly, wild cherry, juniper, Scots pine, walnut, crab apple""")
_words("trees", """oaks, ashes, beeches, alders, willows, hornbeams, limes, sycamores, birches, rowans, hazels,
yews, elms, chestnuts, poplars, maples, hollies, wild cherries, pines, walnuts""")
# Field crops named as mass nouns, so that "$crop was grown" and "the growing of $crop" both read well.
_words("crop", """barley, wheat, rye, flax, hemp, woad, saffron, lavender, clover, sugar beet, oilseed rape, maize""")
_words("fruit", """apples, pears, plums, cherries, damsons, cider apples, cobnuts, quinces""")
_words("trade", """weaving, tanning, rope-making, brewing, boat-building, glassmaking, lace-making, salt-making,
clockmaking, papermaking, ironworking, basket-making, cheesemaking, printing, net-making, glove-making,
brickmaking, candle-making, barrel-making, wool-combing, dyeing, cider-making, hat-making, silk throwing""")
# (trade, the works it is carried on in): "a $works was built", "the expanding $trade trade".
TRADES = [
    ("weaving", "weaving mill"), ("tanning", "tannery"), ("rope-making", "rope works"), ("brewing", "brewery"),
    ("boat-building", "boatyard"), ("glassmaking", "glassworks"), ("lace-making", "lace factory"),
    ("papermaking", "paper mill"), ("ironworking", "ironworks"), ("printing", "printing works"),
    ("glove-making", "glove factory"), ("brickmaking", "brickworks"), ("candle-making", "candle factory"),
    ("dyeing", "dye works"), ("silk throwing", "silk mill"), ("cider-making", "cider mill"),
    ("hat-making", "hat factory"), ("clockmaking", "clock factory"), ("cheesemaking", "creamery"),
]
_words("rock", """limestone, sandstone, granite, flint, chalk, slate, ironstone, gritstone""")
_words("stone", """brick, red brick, pale brick, local stone, dressed stone, grey stone, honey-coloured stone""")
_words("bird", """heron, kingfisher, curlew, lapwing, swallow, swift, skylark, buzzard, kestrel, wren, blackbird,
song thrush, goldfinch, dipper, grey wagtail, tawny owl, barn owl, oystercatcher, redshank, cormorant, rook,
jackdaw, nuthatch, treecreeper, yellowhammer, linnet, sand martin, little grebe, moorhen, red kite""")
_words("birds", """herons, swallows, swifts, skylarks, buzzards, rooks, jackdaws, curlews, lapwings, wagtails,
goldfinches, sand martins, starlings, gulls, house martins, fieldfares, redwings, wrens""")
_words("flower", """primrose, bluebell, foxglove, cowslip, meadowsweet, yellow flag iris, red campion,
oxeye daisy, wild garlic, cuckooflower, harebell, knapweed, ragged robin, marsh marigold, sea pink,
wood anemone, lady's bedstraw, scabious, betony, water mint""")
_words("flowers", """primroses, bluebells, foxgloves, cowslips, wild garlic, campions, orchids, violets,
poppies, oxeye daisies, harebells, marsh marigolds, snowdrops, celandines, anemones""")
# Buildings that can be saved from demolition and given a new use.
_words("building", """chapel, corn exchange, tithe barn, coaching inn, grammar school, toll house, watermill,
railway station, reading room, guildhall, customs house, assembly hall, malthouse, granary, drill hall""")
# Dishes: each reads after "a plate of" and in "we ate X and Y".
_words("food", """bean soup, slow-cooked lamb, soft cheese, grilled fish, dumplings, flatbreads, lentils, olives,
honey cakes, smoked sausage, pickled vegetables, roasted peppers, rice with herbs, baked apples, river trout,
fried potatoes, sheep's cheese, beans cooked with tomatoes, roasted chestnuts, stuffed vine leaves,
mushroom stew, fresh goat's cheese""")
_words("cup_drink", """sweet black tea, strong coffee, mint tea, mountain tea, coffee with cardamom""")
_words("glass_drink", """plum brandy, cloudy cider, light beer, red wine from the lower valley, walnut liqueur,
cherry brandy""")
_words("weather_good", """clear, bright, mild, still, warm, cloudless, breezy, fresh, golden, soft""")
_words("weather_bad", """grey, wet, raw, windy, overcast, cold, misty, drizzling, stormy, bleak""")
_words("season", """spring, summer, autumn, winter""")
_words("month", """January, February, March, April, May, June, July, August, September, October, November,
December""")
_words("warm_month", """May, June, July, August, September""")
_words("cold_month", """November, December, January, February, March""")
_words("colour", """grey, brown, ochre, rust, olive, slate-blue, dun, cream, chestnut, buff, sandy, smoky,
tawny, silvery, pale green, dark green, copper, honey, charcoal, russet""")
_words("adj_old", """old, ancient, venerable, long-established, handsome, historic""")
_words("adj_land", """rolling, gentle, broad, narrow, steep, wooded, open, sheltered, windswept, fertile,
marshy, stony, quiet, green, undulating""")
_words("adj_light", """thin, pale, low, slanting, silver, amber, watery, clear, hazy, soft, hard""")
_words("water", """brook, stream, beck, millrace, rill, runnel, channel, pool, spring""")
_words("saint", """St Aldhelm, St Oswin, St Hilda, St Cuthbert, St Bride, St Petroc, St Edith, St Wilfrid,
St Mary, St Michael, St Andrew, St Lawrence, St Giles, St Helen, St Botolph, St Chad, St Margaret,
St Nicholas, St Leonard, St Peter""")
_words("institution_kind", """Paper Mill, Bell Foundry, Canal, Lifeboat Station, Subscription Library,
Botanic Garden, Observatory, Brass Band, Ferry, Rope Walk, Printing Works, Tramway, Covered Market,
Pottery, Tannery, Mechanics' Institute, Cottage Hospital, Corn Mill, Brewery, Choral Society, Museum,
Harbour Company, Gas Works, Nursery Garden, Glassworks, Weaving Shed, Fire Brigade, Swimming Baths,
Cricket Club, Agricultural Show""")
_words("first_m", """Thomas, William, John, Henry, Edward, Samuel, Joseph, George, Arthur, Walter, Frederick,
Albert, Daniel, Matthew, Robert, Hugh, Owen, Rhys, Alfred, Ernest, Stanley, Harold, Jacob, Isaac, Simon,
Peter, Martin, Lewis, Francis, Ralph, Nathaniel, Elias, Bernard, Cecil, Gilbert, Leonard, Tobias, Jonah""")
_words("first_f", """Mary, Elizabeth, Anne, Margaret, Sarah, Jane, Catherine, Alice, Eleanor, Martha,
Harriet, Emily, Charlotte, Grace, Lucy, Ruth, Agnes, Edith, Florence, Ada, Clara, Ivy, Nell, Rose, Maud,
Hannah, Esther, Beatrice, Dorothy, Winifred, Mabel, Sophia, Isobel, Frances, Lydia, Miriam, Judith, Olive""")
_words("surname", """Ashworth, Barlow, Carver, Dalton, Ellery, Fairfax, Gresham, Holloway, Ingram, Jessop,
Kemble, Lockwood, Marlow, Northcott, Ormsby, Pendle, Quarles, Radley, Stannard, Thorne, Underhill, Vickery,
Whitlock, Yeats, Brampton, Coldwell, Denning, Everett, Foley, Garside, Hebden, Ivory, Kettle, Lister,
Mercer, Nettleton, Oakes, Pryor, Rowntree, Sheldon, Tanner, Varley, Wainwright, Allard, Birtwhistle,
Crossley, Dunmore, Fletcher, Goodall, Haworth, Jagger, Lumb, Moorhouse, Pickles, Sugden, Tattersall,
Greenhalgh, Royle, Ackroyd, Hollins, Bramley, Cheetham, Eastwood, Farrar, Haigh, Kershaw, Midgley""")
# (occupation, the place of work it opens each morning) for people in stories; none of them gendered.
OCCUPATIONS = [
    ("clockmaker", "workshop"), ("baker", "bakery"), ("bookbinder", "workshop"), ("carpenter", "workshop"),
    ("schoolteacher", "schoolroom"), ("chemist", "shop"), ("tailor", "shop"), ("potter", "workshop"),
    ("librarian", "library"), ("photographer", "studio"), ("harness-maker", "workshop"), ("glazier", "workshop"),
    ("bookseller", "shop"), ("ironmonger", "shop"), ("watchmaker", "workshop"), ("printer", "print shop"),
]
_words("occupation", ", ".join(job for job, _ in OCCUPATIONS))
_words("greeting", """Good morning, Good evening, Hello, Well now, There you are, Afternoon""")
_words("relative", """brother, sister, cousin, uncle, aunt, nephew, niece, grandfather, grandmother""")
_words("sound", """the tick of the clock, rain on the slates, the kettle, the wind in the chimney,
distant church bells, a cart on the cobbles, gulls over the harbour, the mill wheel, a dog barking far off,
the creak of the stairs, water running in the gutter, rooks in the elms""")
_words("smell", """wood smoke, wet earth, bread from the bakery, tar and rope, cut grass, coal smoke, apples
in the loft, lamp oil, damp wool, beeswax, hot iron, the tide""")
_words("small_object", """a brass key, a folded letter, a pocket watch, a bundle of seed packets,
a faded photograph, a tin of buttons, a ledger with a cracked spine, a pair of spectacles, a wooden box,
a skein of blue wool, a map drawn in pencil, a chipped cup""")
_words("sky", """the sky was the colour of pewter, low cloud sat on the hills, the sky had cleared to a hard blue,
thin cloud drifted in from the west, the last light lay along the ridge, a pale sun came and went,
rain clouds were building over the estuary, the stars came out one by one""")
_words("adv_time", """Later, Soon afterwards, By noon, Towards evening, Before long, In the end, At first light,
By the time the bells rang, After a while, That afternoon""")
_words("connector", """In addition, Moreover, At the same time, Even so, For this reason, In practice,
Not surprisingly, As a result, On the other hand, By contrast, Meanwhile, Over time""")
_words("ridge_word", """ridge, escarpment, fell, down, moor, edge, scarp, brow""")
_words("street", """High Street, Mill Lane, Church Street, Bridge Street, Market Place, Castle Hill,
Water Lane, Sheep Street, Quay Street, Well Walk, Chapel Row, Fore Street, Tanners Lane, North Street""")
_words("job_plural", """farmers, millers, weavers, carters, fishermen, quarrymen, shopkeepers, teachers,
clerks, labourers, boatmen, tanners, brewers, potters, carpenters, dairymen, nurses, printers""")
_words("region_adj", """upland, lowland, coastal, riverside, northern, southern, western, eastern, border,
inland""")
_words("hill_suffix", """Hill, Knoll, Beacon, Tor, Pike, Down, Edge, Crag, Barrow, Rise""")
# (festival, the month it is held in)
FESTIVALS = [
    ("Lantern Fair", "November"), ("Hiring Fair", "October"), ("Wassail", "January"), ("Well Dressing", "June"),
    ("Rush-bearing", "August"), ("Regatta", "July"), ("Michaelmas Fair", "September"),
    ("Plough Monday procession", "January"), ("Apple Fair", "October"), ("Candle Walk", "February"),
    ("Hobby Horse Day", "May"), ("Beating of the Bounds", "May"), ("Goose Fair", "October"),
    ("Summer Sing", "June"), ("Flower Festival", "July"), ("Harvest Supper", "September"),
]
_words("festival", ", ".join(name for name, _ in FESTIVALS))

PLACE_PRE = parse_bank("""
Ash
Brad
Chal
Dun
Elm
Fen
Grey
Hal
Kings
Lang
Marl
North
Oak
Pen
Red
Stan
Thorn
Wick
Ald
Bar
Bur
Cal
Cold
Cran
Dray
East
Ever
Farn
Glen
Hart
Hol
Kel
Lam
Lin
Mar
Mel
Nether
Old
Pad
Rad
Rush
Sal
Sed
Shep
Ston
Swin
Tad
Thurl
Up
Wal
West
Whit
Wold
Wyn
Yel
""")
PLACE_SUF = parse_bank("""
bury
combe
ford
ham
ley
mere
stead
ton
wick
by
thorpe
well
field
bridge
mouth
worth
den
hurst
cote
holme
leigh
borough
dale
wood
stow
""")
RIVER_A = parse_bank("""
Al
Ar
Bel
Cal
Dar
Del
Ev
Gar
Is
Ken
Lud
Lyn
Mel
Ned
Orw
Rhe
Sev
Tam
Tev
Ur
Wen
Yar
Af
Cor
Dov
Ems
Fal
Hod
Lox
Nid
Ock
Perr
Rib
Swal
Tav
Wyr
""")
RIVER_B = parse_bank("""
e
en
on
ey
ing
er
wy
ach
an
ell
in
""")
# Syllables for places abroad in travel writing: soft, pan-European sounding, deliberately not real names.
ABROAD_A = parse_bank("""
Val
Mor
Santa
Bel
Cor
Ter
Lus
Ost
Ravi
Sel
Dor
Kas
Mira
Pol
Tra
Ves
Zel
Aur
Bren
Cali
Del
Fel
Gor
Ilo
Lan
Mar
Nov
Ora
Per
Ros
Sav
Tor
Ul
Var
Ar
Bos
Cres
Dal
Esk
""")
ABROAD_B = parse_bank("""
ena
ova
ino
etta
ara
ada
ica
ano
esca
ova
ora
ia
ena
ano
ur
ez
os
ak
ar
avi
ento
olo
ela
isa
onia
""")


def place_name(rng: random.Random) -> str:
    pre = rng.choice(PLACE_PRE)
    suf = rng.choice(PLACE_SUF)
    if pre[-1] == suf[0]:
        suf = suf[1:]
    return pre + suf


def river_name(rng: random.Random) -> str:
    return rng.choice(RIVER_A) + rng.choice(RIVER_B)


def abroad_name(rng: random.Random) -> str:
    a = rng.choice(ABROAD_A)
    b = rng.choice(ABROAD_B)
    if a[-1] in "aeiou" and b[0] in "aeiou":
        b = b[1:]
    return a + b


def person(rng: random.Random, sex: str | None = None) -> tuple[str, str, str]:
    """(first name, surname, sex) for a generated person."""
    sex = sex or rng.choice("mf")
    first = rng.choice(V["first_m"] if sex == "m" else V["first_f"])
    return first, rng.choice(V["surname"]), sex


_ORD = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
        "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
        "eighteenth", "nineteenth", "twentieth", "twenty-first"]


def century(year: int) -> str:
    return f"{_ORD[(year - 1) // 100]} century"


def pronouns(sex: str) -> dict[str, str]:
    if sex == "m":
        return {"he": "he", "him": "him", "his": "his", "He": "He", "His": "His"}
    return {"he": "she", "him": "her", "his": "her", "He": "She", "His": "Her"}


def thousands(n: int) -> str:
    return f"{n:,}"
