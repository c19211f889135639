"""Natural-history articles about (invented) birds, trees, moths, fish and wildflowers."""

from __future__ import annotations

import random

from corpus_gen.en_vocab import V, abroad_name, place_name, river_name
from corpus_gen.engine import Filler, parse_bank, parse_banks, tidy_en

# Each kind: its noun, name modifiers, and bases tied to a genus and an English family name, so that a "chat"
# is never placed among the sandpipers. Birds also carry a feeding profile (bill shape, food, how it feeds).
KINDS = {
    "bird": {
        "noun": "bird",
        "mods": "grey-crowned, marsh, hill, river, pale, dusky, lesser, spotted, banded, crested, white-throated, rusty, slender, mountain, shore, northern, reed, upland, olive, cinnamon",
        "bases": [("warbler", "Acrocephalus", "warbler family", "insects"), ("finch", "Carduelis", "finch family", "seeds"),
                  ("bunting", "Emberiza", "bunting family", "seeds"), ("pipit", "Anthus", "pipit and wagtail family", "insects"),
                  ("thrush", "Turdus", "thrush family", "worms"), ("lark", "Alauda", "lark family", "seeds"),
                  ("wagtail", "Motacilla", "pipit and wagtail family", "insects"), ("chat", "Saxicola", "chat and flycatcher family", "flight"),
                  ("flycatcher", "Ficedula", "chat and flycatcher family", "flight"), ("plover", "Charadrius", "plover family", "mud"),
                  ("sandpiper", "Calidris", "sandpiper family", "mud"), ("tit", "Parus", "tit family", "insects"),
                  ("shrike", "Lanius", "shrike family", "flight"), ("rail", "Rallus", "rail family", "worms")],
    },
    "tree": {
        "noun": "tree",
        "mods": "mountain, river, grey, silver, downy, red, rock, cliff, narrow-leaved, broad-leaved, weeping, hill, swamp, upland, small-leaved, coastal, black",
        "bases": [("maple", "Acer", "maple family"), ("willow", "Salix", "willow family"), ("alder", "Alnus", "birch family"),
                  ("lime", "Tilia", "mallow family"), ("birch", "Betula", "birch family"), ("rowan", "Sorbus", "rose family"),
                  ("whitebeam", "Sorbus", "rose family"), ("hawthorn", "Crataegus", "rose family"), ("oak", "Quercus", "beech family"),
                  ("ash", "Fraxinus", "olive family"), ("hornbeam", "Carpinus", "birch family")],
    },
    "moth": {
        "noun": "moth",
        "mods": "grey, marbled, barred, dotted, rosy, small, large, lunar, chestnut, willow, heath, oak, bordered, clouded, silver, autumn, ruddy, feathered, dark",
        "bases": [("carpet", "Xanthorhoe", "geometrid family"), ("pug", "Eupithecia", "geometrid family"),
                  ("underwing", "Catocala", "owlet moth family"), ("hawk-moth", "Sphinx", "hawk-moth family"),
                  ("tiger", "Arctia", "tiger moth family"), ("footman", "Eilema", "tiger moth family"),
                  ("wave", "Idaea", "geometrid family"), ("emerald", "Hemithea", "geometrid family"),
                  ("prominent", "Notodonta", "prominent family"), ("quaker", "Orthosia", "owlet moth family"),
                  ("rustic", "Hoplodrina", "owlet moth family"), ("thorn", "Ennomos", "geometrid family"),
                  ("wainscot", "Mythimna", "owlet moth family")],
    },
    "fish": {
        "noun": "fish",
        "mods": "stone, spotted, river, lake, mountain, golden, silver, striped, hill, brook, spined, dusky, northern, banded, pale",
        "bases": [("loach", "Barbatula", "loach family"), ("minnow", "Phoxinus", "carp family"), ("dace", "Leuciscus", "carp family"),
                  ("char", "Salvelinus", "salmon family"), ("bream", "Abramis", "carp family"), ("sculpin", "Cottus", "sculpin family"),
                  ("grayling", "Thymallus", "salmon family"), ("perch", "Perca", "perch family"), ("gudgeon", "Gobio", "carp family"),
                  ("bleak", "Alburnus", "carp family"), ("chub", "Squalius", "carp family")],
    },
    "plant": {
        "noun": "flowering plant",
        "mods": "mountain, marsh, rock, meadow, alpine, creeping, nodding, tufted, sea, heath, woodland, hairy, bog, spring, autumn, dwarf, hoary, water",
        "bases": [("bellflower", "Campanula", "bellflower family"), ("orchid", "Dactylorhiza", "orchid family"),
                  ("saxifrage", "Saxifraga", "saxifrage family"), ("gentian", "Gentiana", "gentian family"),
                  ("vetch", "Vicia", "pea family"), ("campion", "Silene", "pink family"), ("speedwell", "Veronica", "plantain family"),
                  ("stonecrop", "Sedum", "stonecrop family"), ("violet", "Viola", "violet family"),
                  ("cinquefoil", "Potentilla", "rose family"), ("lousewort", "Pedicularis", "broomrape family"),
                  ("milkwort", "Polygala", "milkwort family"), ("buttercup", "Ranunculus", "buttercup family")],
    },
}

# Latin epithet -> what it means (quoted in the text as the meaning of the scientific name).
EPITHETS = {
    "montanus": "of the mountains", "palustris": "of the marsh", "cinereus": "ash-grey", "rivularis": "of streams",
    "borealis": "northern", "minor": "the lesser", "gracilis": "slender", "maculatus": "spotted",
    "septentrionalis": "of the north", "aquaticus": "of the water", "sylvestris": "of the woods",
    "alpestris": "of the high mountains", "rupestris": "of the rocks", "obscurus": "the dark one", "pallidus": "pale",
    "fasciatus": "banded", "collinus": "of the hills", "littoralis": "of the shore", "nemoralis": "of the groves",
    "vernalis": "of spring", "autumnalis": "of autumn", "ferrugineus": "rust-coloured", "arenarius": "of the sand",
}


def _latin(genus: str, epithet: str) -> str:
    """Genus and epithet with the epithet's ending agreeing with a feminine genus (Sylvia montana)."""
    if genus.endswith("a") and epithet.endswith("us"):
        epithet = epithet[:-2] + "a"
    return f"{genus} {epithet}"


BANKS = parse_banks("""
== lead
The $name ($latin) is A_ $size_adj $kind_noun of the $family, found {mainly|chiefly|largely} in the $region_a and the $region_b.
The $name ($latin) is A_ {widespread|local|uncommon|familiar} $kind_noun of the $family, whose {range|distribution} {extends|stretches|runs} from the $region_a {to|as far as} the $region_b.

== intro
{Its|The species'} {habits|life history} {were|remained} {little known|poorly understood} until the {1950s|1970s}, when {a few dedicated amateurs|a small team from the university in $town} began to study it {closely|in the field}.
{First described by a country parson and a museum curator|First described for science|First named by a travelling naturalist} in the {1790s|1820s|1840s|1860s|1880s}, it was long {confused with|mistaken for} {the common $base|related species} until {careful study|work on museum specimens|field observation} {showed the differences|made clear how distinct it is}.
Its English name refers to {its appearance|its favoured haunts|the district where it was first noticed}, while the {scientific|Latin} name {means|can be translated as} "$epithet_meaning".
{Although|While} it is {rarely|seldom} {common|abundant} {anywhere|in any one place}, the $name is {well known|familiar} to {naturalists|local people|walkers} in the $region_a.
{Several|Two or three|A number of} {local forms|races|varieties} {have been|are} {described|recognised}, {differing|varying} {slightly|a little} in {size|colour|markings}, {although not all authorities accept them|but few specialists agree on them}.

== distribution
{Across|Throughout} {most of|much of} its range the $name {is found|lives|occurs} in $habitat, {usually|mostly|generally} below about $alt metres, {though|although} it {has been recorded|is sometimes found} {higher|at greater heights} {on south-facing slopes|in sheltered valleys|after warm summers}.
{In|Within} the $region_b {it is|the species is} {most numerous|commonest|easiest to find} {in the valley of the $river|along the shores of the great lakes|in the foothills|in the old forests of the interior}, {where|and there} {suitable|good} {habitat|ground} {remains|is still} {widespread|plentiful}.
The {northern|western|eastern|southern} {limit|edge} of its range {appears to be|seems to be|is thought to be} set by {winter cold|summer drought|the lack of suitable ground|competition with related species}, but {recent|new} {records|sightings} suggest that it {may be|is perhaps} {spreading|moving} {north|further north|uphill} as {winters|summers} {grow|become} {milder|warmer}.
{Old accounts from the nineteenth century describe it as|Records from the early 1900s show that it was} {much more common|far more widespread} than it is {today|now}, {particularly|especially} {in the lowlands|in the river valleys|on the farmland near $town}.
On the islands of a large lake in the $region_b {an isolated|a small} population has {survived|persisted} {for centuries|for a very long time}, {cut off from the mainland|separated from its relatives on the shore}.
{Surveys|Surveys by volunteers|Studies} in the {1990s|2000s} {found|showed} that {the species|the $name} was still present {in most of its old haunts|at many of the sites where it had once been recorded}, {although|but} often {in smaller numbers|at lower density}.

== people
{Children in the $region_a once collected pictures of it on cigarette cards|Schoolchildren in $town used to hunt for it in the summer holidays}, and {many older people|some grandparents} still {remember|speak of} the first one they found.
In the $region_a the $name has {several|a number of} {local|dialect} names, among them "$folk_a" and "$folk_b", {which refer to its habits|which say something about its looks|whose origins are long forgotten}.
{Country people|Farmers} once believed that $sign {foretold a change in the weather|announced the end of winter|promised a good harvest|meant rain within three days}, {and some older people still repeat the saying|a belief that a few people still hold}.
A {Victorian|nineteenth-century} {naturalist|clergyman|schoolmaster} in $town {kept a careful diary of the species for thirty years|wrote a long account of the $name over many years}, and those {notes|observations} are still {useful|valuable} to {researchers|students} today.
It {appears|features} in {several|a number of} {old|local} {paintings|prints|embroideries|carvings}, {and|while} {a|one} {well-known|popular} {folk song|rhyme|poem} from the $region_b {mentions|names} it {in its opening lines|in passing|more than once}.
For many people in the $region_a the $name has become {a symbol of the countryside|an emblem of their home valleys}, and {its image appears on local signs and badges|a picture of it is used on regional signs}.

== identification
{Beginners|Newcomers to the group} do well to {learn the common $base first|start with the common $base}, since {many reports of the $name prove to be of its commoner relative|most doubtful records turn out to be of the common $base}.
{In the field|At first sight} the $name {can be confused|is easily confused} with the common $base, {but|although} {close|careful} {inspection|examination} {shows|reveals} {several|a few|clear} {differences|points of difference}.
Its {surest|most reliable} {feature|distinguishing mark} is $field_mark, which {is easy to check with a little practice|beginners often overlook}.
Experienced observers also {point to|rely on} differences in {size|shape|proportions} and in {season|the time of year}, because the $name $season_verb {a little|some weeks} {earlier|later} than its close relatives.
Where the two {occur|are found} together, {hybrids have occasionally been reported|intermediate forms are now and then recorded}, and even {experts|museum specialists} {sometimes disagree over|hesitate about} {individual records|particular specimens}.
Good photographs taken from several angles have become the usual way of {confirming|checking} {unusual|doubtful} records, while older {specimens|collections} in {museums|the university in $town} are still {important|useful} for comparison.

== research
{Research|Work} {carried out|undertaken} {at the university in $town|at a field station in the $region_b|by several universities} since the {1980s|1990s|2000s} has {added|contributed} {greatly|a good deal} to {what is known|our knowledge} {of|about} {its|the species'} {biology|habits|needs}.
One {long-running|long-term} study has followed {several populations|the same sites} for {more than twenty|nearly thirty} years, showing how {numbers|its fortunes} {rise and fall|vary} with {the weather|summer rainfall|late frosts}.
{Recent genetic studies suggest|Genetic work indicates} that the $name {separated|split} from its nearest relatives {quite|relatively} recently, perhaps {during|at the end of} the last ice age.
{Much|A good deal} {remains|is still} {unknown|unclear}, however: little is {known|understood} about $unknown.
{Records|Observations} {sent in|submitted} by {amateur|volunteer} {naturalists|recorders} have {been|proved} {essential|invaluable} {to|for} {this work|such studies}, {since|because} {professional|paid} {scientists|researchers} {cannot|are unable to} {cover|visit} every {valley|site} {each year|regularly}.

== conservation
The $name is {not|not currently} {considered|regarded as} {threatened|endangered} {across|over} {its range as a whole|most of its range}, {but|although} {it has declined|there has been a decline} {in|across} {several|many|some} {regions|districts|countries} since the {1970s|1960s}.
{The main|The chief|The most serious} {threats|pressures|dangers} {are|include} {the loss of|damage to} $habitat, {together with|along with|as well as} {changes in farming|pollution|the spread of conifer plantations|disturbance} and {a warmer climate|the use of pesticides|new roads}.
{In|Across} {parts of|some districts of} the $region_b {it is protected by law|the species enjoys legal protection}, {and|while} {several|a number of} {reserves|protected areas} {have been|were} {set up|established|created} {partly|largely} {to|in order to} {safeguard|protect} {it|its habitat}.
{Volunteers|Local groups|Naturalists' societies} {carry out regular surveys|run yearly recording days|organise regular monitoring}, and the {results|records} help {scientists|conservation bodies} to {follow|track} {changes in its numbers|its fortunes} from year to year.
{Work to restore $habitat has|Efforts to improve $habitat have} already led to a recovery at {several|a few} sites, {which gives some grounds for hope|and this offers some hope}.
""")

KIND_BANKS = parse_banks("""
== bird_desc
Adult birds {measure|are} about $size centimetres {from bill to tail|in length}, with {@colour|warm @colour} {upperparts|backs} and {paler|buff} {underparts|breasts} {finely streaked with dark lines|washed with @colour}.
Its bill is $bill, {well suited|adapted} to $bill_use.
{The sexes look much alike|Males and females are similar}, although the male has A_ {brighter|clearer|more contrasting} {crown|throat} in the breeding season.
{Young birds|Juveniles} are {duller|browner|more speckled} than {adults|their parents}, and can be {hard|difficult} to tell apart from {related|similar} species {in autumn|in the field}.
Its song is A_ {rapid|thin|sweet|scratchy|fluting} {run|phrase} of {notes|whistles}, {usually|often} {delivered|given} {from a high perch|from the top of a bush|from a fence post|in a short song flight}, {and|while} its call is A_ {sharp|soft|dry} {"tic"|"tsip"|"chuck"}.
In flight it shows A_ {pale|white|rusty} {rump|wing bar|tail edge}, which {helps observers to pick it out|makes it easier to recognise} {at a distance|against the sky}.

== bird_behaviour
{It|The $name} feeds {mainly|chiefly} on $feeding.
Outside the breeding season it {often joins|may gather in} {small flocks|loose groups}, sometimes with birds of other kinds, and {wanders widely|moves about the country} in search of food.
{Birds in the north|Northern populations} {migrate|move} {south|to warmer districts} in {autumn|September and October}, returning {in April|in early spring|by late March}, {while|whereas} those {further south|in the lowlands} {stay|remain} {all year|through the winter}.
It is {generally|usually} {shy|wary} and keeps to {cover|thick vegetation}, so that it is {more often heard than seen|easily overlooked}.
{Pairs|Territorial males} {defend|hold} {small|well-marked} territories in spring, {singing|calling} {at first light and again towards evening|from dawn onwards and again in the late afternoon}.

== bird_breeding
{The nest|Its nest} is A_ {neat|loose|deep} cup of {grass|moss|roots and hair|dry leaves}, {hidden|placed} {low in a shrub|close to the ground|among tall plants}, and {is usually built by the female|takes the female about a week to build}.
A clutch usually holds {three to five|four to six|five or six} {eggs|pale eggs}, which are incubated for about {twelve|thirteen|fourteen} days.
{Both parents|The adults} {feed|bring food to} the {young|chicks|nestlings}, which leave the nest after {about two weeks|twelve to fifteen days} {and|but} {stay|remain} {close by|with their parents} for {some time|several weeks}.
{In good years|Where food is plentiful}, {pairs|many pairs} {raise|rear} {a second brood|two broods}, while {in the north|in upland areas} a single brood is {usual|the rule}.

== tree_desc
{It|The $name} {grows to|can reach} {about|up to} $size metres, {with|forming} A_ {rounded|narrow|spreading|domed} crown and A_ {straight|short|often twisted} {trunk|bole}.
The bark is {smooth and @colour on young trees, becoming darker and more cracked with age|@colour and deeply furrowed on mature trees|thin, @colour and peeling in strips on older trunks}.
Its leaves are {oval|lobed|narrow|heart-shaped} and {finely|coarsely|sharply} toothed, {dark|bright|pale} green above and {paler|greyish|downy} beneath, and {turn|become} {yellow|bright orange|deep red|russet} in autumn.
{Small|Tiny|Pale} flowers {appear|open} in $flower_month, in {clusters|loose sprays|catkins} that {attract|draw} {bees|many insects}, and the {fruits|seeds} ripen in {late summer|autumn}.
Its wood is {hard|pale} and {close-grained|even-textured}, and has long been {used|valued} for {tool handles|turnery and carving|fencing posts|furniture}.

== tree_ecology
{The tree|It} {prefers|does best on} {damp|well-drained|thin|deep} soils in {sheltered|open|sunny} positions, and tolerates {exposure|poor soil|wind|shade} better than most other trees.
{Many|Numerous} {insects|kinds of insect} {feed|live} on its {leaves|bark}, {and|while} {birds|@birds and tits} {take|eat} its {seeds|fruits} in {autumn|winter}.
Its roots help to {bind|hold} {river banks|steep slopes|loose soil}, and it has long been planted to {prevent|reduce} {erosion|landslips}.
{Old|Veteran} trees often become hollow, and {these|such} hollows {give shelter to|provide homes for} {bats|owls|beetles and other insects}.

== tree_cycle
{Seedlings|Young trees} grow {quickly|slowly|steadily} {in open ground|in clearings|at the edges of woods}, but {rarely|seldom} {survive|thrive} in {deep|heavy} shade.
{Trees|Individuals} {begin|start} to {flower|bear fruit} at {about|around} {ten|fifteen|twenty} years old, and {some|the oldest} {specimens|trees} are thought to be {several hundred|more than two hundred} years old.
It is easily raised from {seed|cuttings}, and nurseries have offered it for {parks|gardens|street planting} since the {nineteenth century|Victorian period}.

== moth_desc
Its wingspan {is|measures} about $size millimetres, and the forewings are @colour, crossed by {fine|wavy} {lines|bands}, with A_ {small|distinct} {dark|pale} {spot|mark} {near the centre|towards the tip}.
The hindwings are {plain|@colour} and {usually|mostly} hidden when the moth is at rest, so that it {blends into|merges with} {bark|dead leaves|lichen-covered stone}.
{Males have|The male has} {feathery|finely toothed} antennae, while those of the female are {simple|thread-like}, a difference {that can be seen|easily seen} with A_ {hand lens|magnifying glass}.
{Some|A few} individuals are {much darker|almost black}, and such forms {were|became} {common|frequent} {near industrial towns|around smoky cities} in the {nineteenth century|industrial age}.

== moth_behaviour
{Adults|The moths} {fly|are on the wing} in $flower_month, {mostly|mainly} at night, and {come readily to|are attracted to} {light|lamps|lighted windows}.
During the day they rest {on tree trunks|on fence posts|among leaf litter|on old walls}, {relying on|trusting to} their {camouflage|colouring} to {escape|avoid} {birds|notice}.
{Adults|The moths} {feed at|take nectar from} {flowers|blossoms} such as {ivy|sallow catkins|honeysuckle|@flower}, {and|while} {some|a few} {also visit|are drawn to} {ripe fruit|tree sap}.

== moth_cycle
The caterpillars feed on {the leaves of @tree|@tree and @tree|grasses|low plants}, growing to {about|nearly} {three|four} centimetres before they pupate {in the soil|under leaf litter|beneath loose bark}.
It {passes|spends} the winter as {a pupa|a small caterpillar}, and there is {one generation a year|a single generation each year} in {the north|most districts}, but two in {the south|warmer areas}.
The eggs are laid {singly|in small groups} on {the food plant|twigs|the undersides of leaves}, and hatch after {about a week|two weeks|about three weeks}.

== fish_desc
Its fins are {short and rounded|tinged with orange|edged with white}, and the tail is {slightly forked|almost square}.
{Adults reach about $size centimetres in length|Adult fish grow to about $size centimetres long}, with A_ {slender|deep|rounded|torpedo-shaped} body marked with {dark|@colour} {spots|bars|blotches} on A_ {pale|silvery|@colour} background.
Its mouth is {small and turned downwards|set low, with fleshy barbels|broad and blunt}, {well suited|adapted} {to searching among stones|to feeding on the river bed|to probing soft mud}.
In the spawning season {males|the males} {develop|show} {brighter|redder|darker} {colours|fins|bellies}, {and|while} {small|tiny} {white|pale} {tubercles|bumps} {appear|form} on their {heads|fins}.

== fish_behaviour
{In winter|During the coldest months} it {becomes sluggish|moves little}, {resting in deep pools|sheltering under banks and among roots} until the water warms again in spring.
{It|The $name} {lives|is usually found} {close to the bottom|near the banks}, where it {hides|shelters} {under stones|among roots|among weed}.
{It|The fish} {feeds|forages} {mainly|chiefly} {at night|at dawn and dusk|by day}, taking {insect larvae|small crustaceans|worms and snails|the young of other fish}.
{Shoals|Groups} of {young|small} fish {gather|collect} in {shallow|slack|quiet} water {near|along} the {margins|edges|banks}, {while|and} {larger|older} {fish|individuals} keep to {deeper pools|the main current}.

== fish_cycle
Spawning takes place in $flower_month, when the adults {move onto|gather over} {clean gravel|stony shallows} to lay their eggs.
The eggs stick to {stones|water plants}, and the fry hatch after {one to two|two to three} weeks, depending on the temperature of the water.
Young fish {mature in|become adult after} {two|three|two or three} years, and few live longer than {five|six|eight} years in the wild.

== plant_desc
{It is|This is} A_ {low|tufted|upright|creeping} perennial {reaching|growing to} {about|up to} $size centimetres, with {narrow|rounded|hairy|fleshy} leaves {in|forming} A_ {rosette|loose clump} {at|near} the base.
The flowers are {deep blue|pale violet|bright yellow|white|rose-pink} and {bell-shaped|star-shaped|tubular}, carried {singly|in loose spikes|in small heads} on {slender|wiry|short} stems.
The seeds ripen in {late summer|early autumn}, and the plants spread {slowly by runners|by underground stems|mainly by seed}.

== plant_cycle
The seeds {need a period of cold|must lie through a winter} before they will {germinate|sprout}, and seedlings {are slow to establish|take two or three years to flower}.
{Each plant|A single clump} may live for {many years|a decade or more}, {flowering more freely after a hot summer|producing fewer flowers in a wet year}.
{In winter|Through the winter months} the plant {dies back to a small bud at ground level|keeps a rosette of leaves pressed flat against the soil}, and is then {easily overlooked|very hard to find}.

== plant_ecology
It grows in $habitat, often among {mosses and sedges|other low plants}, and cannot compete with {taller|coarser} {vegetation|grasses}.
Its flowers {appear in $flower_month and are|are} {visited|pollinated} {by|mainly by} {bees|bumblebees|hoverflies|small moths}, which {are drawn|seem attracted} {by|to} {its|the} {scent|colour|nectar}.
Light grazing by {sheep|cattle|ponies} helps the plant by keeping {taller plants|rank grasses} in check, and it often {disappears|declines} where grazing stops.
""")

HABITAT = {
    "bird": parse_bank("""
reed beds and wet meadows
open moorland and rough grazing
stony river banks and gravel bars
hedgerows and the edges of woods
scrub on dry hillsides
salt marshes and estuaries
"""),
    "tree": parse_bank("""
damp valley bottoms and stream sides
rocky hillsides and cliff ledges
the margins of upland woods
old parkland and field edges
river gravels and flood plains
"""),
    "moth": parse_bank("""
open heathland and moorland edges
broadleaved woods and their rides
old orchards and overgrown gardens
damp meadows and fens
chalk grassland and scrub
"""),
    "fish": parse_bank("""
cool, stony upland streams
slow lowland rivers and canals
clear, deep lakes
the lower reaches of rivers
gravel-bottomed brooks
"""),
    "plant": parse_bank("""
damp, acid grassland
rocky limestone country
bog margins and flushes
old hay meadows
dunes and cliff-top turf
open woodland glades
"""),
}
SIZE = {"bird": (11, 34), "tree": (6, 30), "moth": (22, 80), "fish": (6, 45), "plant": (5, 60)}
# Country names, invented, one set per kind.
FOLK = {
    "bird": ["mill bird", "rain bird", "grey lady", "river friend", "furze sparrow", "reed chatterer", "hay jack",
             "ditch hopper", "wet-weather bird"],
    "tree": ["fire tree", "bride's tree", "wind tree", "grey sister", "shepherd's staff", "bell tree",
             "whistle wood", "late leaf"],
    "moth": ["lamp moth", "ghost wing", "candle fly", "night baker", "owl fly", "grey dusty", "barn ghost"],
    "fish": ["stone sucker", "gravel jack", "pebble fish", "river tiger", "silver dart", "mud kitten", "whiskers"],
    "plant": ["rain bells", "fairy cups", "lady's thimble", "mountain stars", "blue eyes", "milkmaid's cap",
              "cuckoo's shoes", "bride's bell"],
}
# What country lore watched for, what appears early or late, and what is still not known.
SIGN = {"bird": "its first song in spring", "tree": "its first leaves", "moth": "its arrival at lighted windows",
        "fish": "its appearance in the shallows", "plant": "its flowering"}
FIELD_MARK = {"bird": "the pale stripe above the eye", "tree": "the shape of its leaf buds in winter",
              "moth": "the pattern of lines on the forewing", "fish": "the number of rays in the back fin",
              "plant": "the shape of the lower leaves"}
SEASON_VERB = {"bird": "arrives", "tree": "comes into leaf", "moth": "flies", "fish": "spawns", "plant": "flowers"}
UNKNOWN = {
    "bird": "how far young birds travel before they settle, or how long adults live in the wild",
    "tree": "how far its seeds are carried, or how long the oldest trees have stood",
    "moth": "where the caterpillars spend the hardest weeks of winter, or how far adults wander",
    "fish": "how far young fish travel along the rivers, or how long adults live in the wild",
    "plant": "how long its seeds survive in the soil, or which insects matter most for setting seed",
}
MONTHS = {
    "bird": ["April and May"],
    "tree": ["April and May", "May and June", "early spring", "March and April"],
    "moth": ["April and May", "May and June", "June and July", "July and August", "late summer"],
    "fish": ["April and May", "May and June", "early spring", "March and April"],
    "plant": ["April and May", "May and June", "June and July", "July and August", "late summer"],
}
# Birds: (bill, what the bill is suited to, what and how it feeds)
FEEDING = {
    "insects": ("fine and pointed", "picking insects from leaves",
                "insects and spiders, which it picks from the leaves of trees and bushes"),
    "seeds": ("short and stout", "cracking seeds", "seeds, taking small insects as well in summer"),
    "worms": ("straight and strong", "probing the soil", "worms, snails and beetles found among fallen leaves"),
    "mud": ("long and slender", "probing soft mud", "worms, snails and small crabs, found by probing soft mud"),
    "flight": ("broad and flat", "catching insects in flight", "flies and small beetles, caught in short sallies from a perch"),
}

PLAN = [
    ("lead+intro", ["lead", "intro"], (3, 4)),
    ("Description", ["desc"], (3, 6)),
    ("Distribution and habitat", ["distribution"], (3, 4)),
    ("", ["distribution"], (3, 3)),
    ("Behaviour and ecology", ["behaviour"], (3, 5)),
    ("Life cycle", ["cycle"], (2, 4)),
    ("Identification", ["identification"], (3, 5)),
    ("Research", ["research"], (3, 4)),
    ("People", ["people"], (3, 5)),
    ("Conservation", ["conservation"], (3, 3)),
    ("", ["conservation"], (3, 3)),
]


def _split(s: str) -> list[str]:
    return [x.strip() for x in s.split(",") if x.strip()]


def document(rng: random.Random, kind: str) -> tuple[str, list[str]]:
    spec = KINDS[kind]
    base, genus, family, *diet = rng.choice(spec["bases"])
    name = f"{rng.choice(_split(spec['mods']))} {base}"
    lo, hi = SIZE[kind]
    size = rng.randint(lo, hi)
    third = (hi - lo) / 3
    epithet = rng.choice(sorted(EPITHETS))
    folk_a, folk_b = rng.sample(FOLK[kind], 2)
    facts = {
        "name": name,
        "base": base,
        "kind_noun": spec["noun"],
        "size_adj": "small" if size < lo + third else "medium-sized" if size < lo + 2 * third else "large",
        "latin": _latin(genus, epithet),
        "epithet_meaning": EPITHETS[epithet],
        "family": family,
        "region_a": f"{abroad_name(rng)} {rng.choice(['uplands', 'lowlands', 'plateau', 'basin', 'hills'])}",
        "region_b": f"{abroad_name(rng)} {rng.choice(['mountains', 'valleys', 'lake district', 'forests', 'plains', 'peninsula'])}",
        "habitat": rng.choice(HABITAT[kind]),
        "alt": str(rng.randint(4, 18) * 100),
        "size": str(size),
        "river": river_name(rng),
        "town": place_name(rng),
        "folk_a": folk_a,
        "folk_b": folk_b,
        "sign": SIGN[kind],
        "season_verb": SEASON_VERB[kind],
        "field_mark": FIELD_MARK[kind],
        "unknown": UNKNOWN[kind],
        "flower_month": rng.choice(MONTHS[kind]),
    }
    if diet:
        facts["bill"], facts["bill_use"], facts["feeding"] = FEEDING[diet[0]]
    fill = Filler(rng, facts, V, tidy_en)
    behaviour = {"bird": "bird_behaviour", "tree": "tree_ecology", "moth": "moth_behaviour",
                 "fish": "fish_behaviour", "plant": "plant_ecology"}[kind]
    cycle = {"bird": "bird_breeding", "tree": "tree_cycle", "moth": "moth_cycle", "fish": "fish_cycle",
             "plant": "plant_cycle"}[kind]
    banks = {**BANKS, "desc": KIND_BANKS[f"{kind}_desc"], "behaviour": KIND_BANKS[behaviour]}
    if cycle:
        banks["cycle"] = KIND_BANKS[cycle]
    paragraphs: list[str] = []
    # Half the articles get a second paragraph (what its bank left over) on distribution or on conservation.
    second = rng.choice(["distribution", "conservation", None, None])
    for heading, names, (lo_k, hi_k) in PLAN:
        if names == ["cycle"] and cycle is None:
            continue
        if not heading and names[0] != second:
            continue
        if names[0] == "lead":
            sentences = [fill.one(banks["lead"])] + fill.pick(banks["intro"], rng.randint(lo_k, hi_k))
        else:
            sentences = fill.pick(banks[names[0]], rng.randint(lo_k, hi_k))
        if len(sentences) >= (1 if heading else 2):
            paragraphs.append(" ".join(sentences))
    title = name[0].upper() + name[1:]
    return title, paragraphs
