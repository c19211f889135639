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
_words("crop", """barley, oats, wheat, rye, flax, hops, potatoes, turnips, apples, pears, plums, cherries, beans,
peas, cabbages, onions, strawberries, damsons, carrots, mangolds""")
_words("trade", """weaving, tanning, milling, rope-making, brewing, pottery, boat-building, glassmaking,
lace-making, quarrying, charcoal burning, salt-making, clockmaking, papermaking, ironworking, basket-making,
cheesemaking, printing, shipbuilding, net-making, glove-making, brickmaking, candle-making, cooperage,
wool-combing, dyeing, leatherwork, cider-making, hat-making, silk throwing""")
_words("material", """limestone, sandstone, granite, flint, red brick, timber, slate, chalk, cob, ironstone,
honey-coloured stone, grey rubble, pale brick, dressed ashlar""")
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
_words("building", """chapel, market hall, corn exchange, tithe barn, coaching inn, row of almshouses,
grammar school, toll house, watermill, stone bridge, lock-keeper's cottage, railway station, reading room,
town hall, guildhall, windmill, customs house, assembly rooms, dovecote, malthouse, granary, lych-gate""")
_words("food", """bread, thick soup, slow stews, soft cheeses, pastries, grilled fish, dumplings, flatbreads,
lentils, olives, honey cakes, smoked sausage, pickled vegetables, roasted peppers, rice with herbs,
baked apples, river trout, walnut bread, buttermilk, barley porridge, fried potatoes, sheep's cheese,
beans cooked with tomatoes, apricot preserve, roasted chestnuts""")
_words("drink", """sweet black tea, strong coffee, cloudy cider, mint tea, plum brandy, light beer, sour milk,
lemon water, mountain tea, red wine from the lower valley, apple juice, barley water""")
_words("weather_good", """clear, bright, mild, still, warm, cloudless, breezy, fresh, golden, soft""")
_words("weather_bad", """grey, wet, raw, windy, overcast, cold, misty, drizzling, stormy, bleak""")
_words("season", """spring, summer, autumn, winter""")
_words("month", """January, February, March, April, May, June, July, August, September, October, November,
December""")
_words("warm_month", """May, June, July, August, September""")
_words("cold_month", """November, December, January, February, March""")
_words("colour", """grey, brown, ochre, rust, olive, slate-blue, dun, cream, chestnut, buff, sandy, smoky,
tawny, silvery, pale green, dark green, copper, honey, charcoal, russet""")
_words("adj_old", """old, ancient, weathered, venerable, long-established, time-worn, modest, handsome""")
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
_words("occupation", """schoolteacher, ferryman, clockmaker, baker, postmistress, stonemason, bookbinder,
carpenter, boatwright, seamstress, lock-keeper, apothecary, shepherd, blacksmith, gardener, organist,
surveyor, librarian, photographer, ropemaker, innkeeper, weaver, glazier, harness-maker, cartographer,
tailor, potter, beekeeper, chandler, nurse""")
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
_words("festival", """Lantern Fair, Hiring Fair, Wassail, Well Dressing, Rush-bearing, Regatta, Michaelmas Fair,
Plough Monday procession, Apple Fair, Candle Walk, Hobby Horse Day, Beating of the Bounds, Goose Fair,
Summer Sing, Flower Festival, Harvest Supper""")

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
