"""Natural-history articles about (invented) birds, trees, moths, fish and wildflowers."""

from __future__ import annotations

import random

from corpus_gen.en_vocab import V, abroad_name, place_name, river_name
from corpus_gen.engine import Filler, parse_bank, parse_banks, tidy_en

KINDS = {
    "bird": {
        "noun": "bird",
        "mods": "grey-crowned, marsh, hill, river, pale, dusky, lesser, spotted, banded, crested, white-throated, rusty, slender, mountain, shore, northern, reed, upland, olive, cinnamon",
        "bases": "warbler, finch, bunting, pipit, thrush, lark, wagtail, chat, flycatcher, plover, sandpiper, tit, shrike, rail",
        "genera": "Acrocephalus, Emberiza, Anthus, Turdus, Motacilla, Saxicola, Ficedula, Charadrius, Calidris, Parus, Lanius, Rallus, Carduelis, Sylvia",
        "family": "the warblers, the buntings, the pipits and wagtails, the thrushes, the chats and flycatchers, the plovers, the sandpipers, the tits, the shrikes, the rails, the finches",
    },
    "tree": {
        "noun": "tree",
        "mods": "mountain, river, grey, silver, downy, red, rock, cliff, narrow-leaved, broad-leaved, weeping, hill, bay, swamp, upland, small-leaved, coastal, black",
        "bases": "maple, willow, alder, lime, birch, rowan, whitebeam, hawthorn, pine, fir, oak, ash, hornbeam",
        "genera": "Acer, Salix, Alnus, Tilia, Betula, Sorbus, Crataegus, Pinus, Abies, Quercus, Fraxinus, Carpinus",
        "family": "the maples, the willows, the birches, the limes, the roses, the pines, the beeches, the olives",
    },
    "moth": {
        "noun": "moth",
        "mods": "grey, marbled, barred, dotted, rosy, small, large, lunar, chestnut, willow, heath, oak, bordered, clouded, silver, autumn, ruddy, feathered, pale, dark",
        "bases": "carpet, pug, underwing, hawk-moth, tiger, footman, wave, emerald, prominent, quaker, rustic, thorn, wainscot",
        "genera": "Xanthorhoe, Eupithecia, Catocala, Sphinx, Arctia, Eilema, Idaea, Hemithea, Notodonta, Orthosia, Hoplodrina, Ennomos, Mythimna",
        "family": "the geometrids, the owlet moths, the hawk-moths, the tiger moths, the prominents",
    },
    "fish": {
        "noun": "fish",
        "mods": "stone, spotted, river, lake, mountain, golden, silver, striped, hill, brook, spined, dusky, northern, banded, pale, common",
        "bases": "loach, minnow, dace, char, goby, bream, sculpin, grayling, perch, gudgeon, bleak, chub",
        "genera": "Barbatula, Phoxinus, Leuciscus, Salvelinus, Gobio, Abramis, Cottus, Thymallus, Perca, Alburnus, Squalius",
        "family": "the loaches, the carps and minnows, the salmon and char, the sculpins, the perches, the graylings",
    },
    "plant": {
        "noun": "flowering plant",
        "mods": "mountain, marsh, rock, meadow, alpine, creeping, nodding, tufted, sea, heath, woodland, hairy, bog, spring, autumn, dwarf, hoary, water",
        "bases": "bellflower, orchid, saxifrage, gentian, vetch, campion, speedwell, stonecrop, violet, cinquefoil, lousewort, milkwort, buttercup",
        "genera": "Campanula, Dactylorhiza, Saxifraga, Gentiana, Vicia, Silene, Veronica, Sedum, Viola, Potentilla, Pedicularis, Polygala, Ranunculus",
        "family": "the bellflowers, the orchids, the saxifrages, the gentians, the peas, the pinks, the plantains, the roses, the buttercups",
    },
}

EPITHETS = parse_bank("""
montanus
palustris
cinereus
rivularis
borealis
minor
gracilis
maculatus
septentrionalis
aquaticus
sylvestris
alpestris
rupestris
obscurus
pallidus
fasciatus
collinus
littoralis
nemoralis
vernalis
autumnalis
ferrugineus
arenarius
""")

BANKS = parse_banks("""
== lead
The $name ($latin) is A_ {small|medium-sized|modest|slender|sturdy} $kind_noun {of|belonging to} {the family of|} $family, {found|occurring|native} {mainly|chiefly|largely} in the $region_a and the $region_b.
The $name ($latin) is A_ {widespread|local|uncommon|familiar|rather secretive} $kind_noun {whose range|whose distribution} {extends|stretches|runs} from the $region_a {to|as far as} the $region_b.

== intro
{First described|Described for science} {by naturalists|in the scientific literature|by a country parson and a museum curator} in the {1790s|1820s|1840s|1860s|1880s}, it {was long|has often been} {confused with|mistaken for} {a close relative|the common $base|related species} {until|before} {careful study|work on museum specimens|field observation} {showed|made clear} {the differences|how distinct it is}.
{Its|The} {common name|English name} {refers to|comes from} {its|the} {@colour|distinctive} {colouring|markings|appearance} {and|as well as} {its|the} {preferred|favoured|usual} {habitat|surroundings}, {while|whereas} {the scientific name|the Latin name} {means|can be translated as} {"little one of the hills"|"grey one of the marsh"|"the river dweller"|"spotted one of the woods"|"one of the rocks"}.
{Although|While} it is {rarely|seldom} {common|abundant} {anywhere|in any one place}, the $name {is|remains} {well known|familiar} {to|among} {naturalists|local people|walkers} {in|across} the $region_a.
{Several|Two or three|A number of} {local forms|races|varieties} {have been|are} {described|recognised}, {differing|varying} {slightly|a little} in {size|colour|markings}, {although|but} {not all|few} {specialists|authorities} {accept|agree on} them.

== distribution
{Across|Throughout} {most of|much of} its range the $name {is found|lives|occurs} {in|among} $habitat, {usually|mostly|generally} {below|under} about $alt metres, {though|although} it {has been recorded|is sometimes found} {higher|at greater heights} {in|on} {sheltered valleys|south-facing slopes|warm summers}.
{In|Within} the $region_b {it is|the species is} {most numerous|commonest|easiest to find} {around|near|along} {the valley of the $river|the shores of the great lakes|the foothills|the old forests of the interior}, {where|and there} {suitable|good} {habitat|ground} {remains|is still} {widespread|plentiful}.
The {northern|western|eastern|southern} {limit|edge} of its range {appears to be|seems to be|is thought to be} {set|determined|fixed} by {winter cold|summer drought|the lack of suitable ground|competition with related species}, {and|but} {recent|new} {records|sightings} {suggest|hint} {that|} it {may be|is perhaps} {spreading|moving} {north|further north|uphill} {as|while} {winters|summers} {grow|become} {milder|warmer}.
{Old|Older} {accounts|records|lists} {from|of} the {nineteenth century|1900s} {describe|show} it {as|to be} {much more common|far more widespread|commoner} {than|than it is} {today|now}, {particularly|especially} {in|around} {the lowlands|the river valleys|the farmland near $town}.
{On|Among} the {islands|coastal districts} {off|of} the $region_a {a separate|an isolated|a small} {population|colony} {has|seems to have} {survived|persisted} {for|over} {centuries|a very long time}, {cut off from the mainland|separated by the sea} {since|after} the {end of the last ice age|rise in sea levels}.
{Surveys|Surveys by volunteers|Studies} {in|during} the {1990s|2000s} {found|showed} {that|} {the species|the $name} {was|is} {still|} {present|holding on} {in|at} {most|many} {of its old haunts|of the sites where it had been recorded}, {although|but} {often|} {in smaller numbers|at lower density}.

== people
{In|Across} the $region_a the $name {has|carries} {several|many|a number of} {local|country|dialect} {names|names of its own}, {among them|including} {"$folk_a"|"$folk_a" and "$folk_b"}, which refer to its {colour|habits|season of appearance}.
{Country people|Farmers|Older people} {once|used to} {believed|believe} {that|} {its|the} {appearance|arrival|flowering|first calls} {foretold|announced|signalled} {a change in the weather|the end of winter|a good harvest|rain within three days}, {and some older people still repeat the saying|a belief that a few people still hold}.
{A|One} {nineteenth-century|Victorian} {naturalist|clergyman|schoolmaster} {from|in} $town {wrote|kept} {a detailed|a careful|a long} {account|diary|notebook} of {the $name|the species} {over|during} {thirty|twenty|many} years, and those {notes|observations} {remain|are still} {useful|valuable} to {researchers|students} {today|now}.
{It appears in|It is shown on|It features in} {several|a number of} {old|local} {paintings|prints|embroideries|carvings}, {and|while} {a|one} {well-known|popular} {folk song|rhyme|poem} {from|of} the $region_b {mentions|names} it {in its opening lines|in passing|more than once}.
{For|To} {many|most} {people|visitors} {in|to} the $region_a the $name {is|has become} {a symbol|an emblem|a sign} {of|for} {the|their} {countryside|region|home valleys}, {and|so that} {its image appears on|a picture of it is used in} {local|regional} {signs|badges|logos}.

== identification
{In the field|At first sight} the $name {can be|is easily} {confused|mixed up} with the common $base, {but|although} {close|careful} {inspection|examination} {shows|reveals} {several|a few|clear} {differences|points of difference}.
{The|Its} {best|surest|most reliable} {feature|distinguishing mark} {is|remains} {the|its} {@colour|pale|darker} {colouring|markings} {on|towards} the {upper side|lower side|edges}, {which|and this} {is|remains} {visible|noticeable} {even|} {at|from} {a distance|some way off}.
{Specialists|Experienced observers} {also|often} {point to|rely on} {differences in|the} {size|shape|proportions} {and|as well as} {season|the time of year}, {since|because} the $name {appears|is active} {a little|some weeks} {earlier|later} than its {relatives|close relatives}.
{Where|In places where} the two {occur|live} together, {hybrids|intermediate forms} {are|have been} {occasionally|sometimes} {reported|recorded}, {and|so} {even|} {experts|museum specialists} {sometimes|occasionally} {disagree|hesitate} {over|about} {individual|particular} {records|specimens}.
{Photographs|Good photographs} {taken|made} {from|at} {several|different} {angles|sides} {are|have become} {the|a} {usual|common} {way|means} {of|for} {confirming|checking} {unusual|doubtful} records, {and|while} {old|older} {specimens|collections} {in|at} {museums|the university} {remain|are still} {important|useful} for comparison.

== research
{Research|Work} {carried out|undertaken} {at the university in $town|at a field station in the $region_b|by several universities} {since|during} the {1980s|1990s|2000s} has {added|contributed} {greatly|a good deal} to {what is known|our knowledge} {of|about} {its|the species'} {biology|habits|needs}.
{One|A} {long-running|long-term} study {followed|has followed} {individual|marked} {populations|sites} {over|for} {more than|nearly} {twenty|fifteen|thirty} years, {showing|and showed} {how|that} {numbers|its fortunes} {rise and fall|vary} {with|according to} {the weather|summer rainfall|late frosts}.
{Genetic|Recent genetic} {studies|work} {suggest|indicates} {that|} the $name {separated|split} from {its|its nearest} relatives {quite|relatively} {recently|late}, {perhaps|possibly} {during|at the end of} {one of the|the last} {ice ages|cold periods}.
{Much|A good deal} {remains|is still} {unknown|unclear}, {however|though}: {little|not much} is {known|understood} about {how far young individuals travel|where young individuals settle}, {or|and} {how long|how many years} they {live|survive} in the wild.
{Records|Observations} {sent in|submitted} by {amateur|volunteer} {naturalists|recorders} have {been|proved} {essential|invaluable} {to|for} {this work|such studies}, {since|because} {professional|paid} {scientists|researchers} {cannot|are unable to} {cover|visit} {every|each} {valley|site} {each year|regularly}.

== conservation
The $name is {not|not currently} {considered|regarded as} {threatened|endangered} {across|over} {its range as a whole|most of its range}, {but|although} {it has declined|there has been a decline} {in|across} {several|many|some} {regions|districts|countries} {since|during} the {1970s|1960s|last century}.
{The main|The chief|The most serious} {threats|pressures|dangers} {are|include} {the loss of|the draining of|damage to} $habitat, {together with|along with|as well as} {changes in farming|pollution of rivers|the spread of conifer plantations|disturbance} {and|or} {a warmer climate|the use of pesticides|new roads}.
{In|Across} {parts of|some districts of} the $region_b {it|the species} {is protected by law|enjoys legal protection}, {and|while} {several|a number of} {reserves|protected areas} {have been|were} {set up|established|created} {partly|largely} {to|in order to} {safeguard|protect|care for} {it|its habitat}.
{Volunteers|Local groups|Naturalists' societies} {carry out|organise|run} {regular|yearly|annual} {surveys|monitoring|recording days}, and the {results|records} help {scientists|conservation bodies} to {follow|track} {changes in its numbers|its fortunes} from year to year.
{Work to restore|Work to improve} {old|former|damaged} {meadows|woodland|river banks|heathland} has {already|in some places} {led to a recovery|brought about the return of the species} at {several|a few} sites, {which gives some grounds for hope|and this offers some hope}.
""")

KIND_BANKS = parse_banks("""
== bird_desc
{Adults|Adult birds} {measure|are} {about|roughly|around} $size centimetres {from bill to tail|in length}, {with|and have} {@colour|@colour-brown|warm @colour} {upperparts|backs} and {paler|lighter|buff} {underparts|breasts} {marked|streaked|washed} with {@colour|fine dark lines}.
{The|Its} {bill|beak} is {short|slender|fine|stout} and {pointed|dark|slightly curved}, {well suited|adapted} {to|for} {picking insects from leaves|cracking seeds|probing soft mud|catching insects in flight}.
{Males|The sexes} {and females|} {look|are} {similar|much alike}, {although|but} {males|the male} {have|has} A_ {brighter|clearer|more contrasting} {crown|throat|wing bar} {in|during} the breeding season.
{Young birds|Juveniles} are {duller|browner|more speckled} than {adults|their parents}, and can be {hard|difficult} to tell apart from {related|similar} species {in autumn|in the field}.
{Its|The} song is A_ {rapid|thin|sweet|scratchy|fluting} {series|run|phrase} of {notes|whistles|trills}, {usually|often} {delivered|given} from {a high perch|the top of a bush|a fence post|the air}, {and|while} {its|the} call is A_ {sharp|soft|dry} {"tic"|"tsip"|"chuck"}.
{In flight|When it flies} it {shows|reveals} A_ {pale|white|rusty} {rump|wing bar|tail edge}, {and|which} {helps|makes it easier} {observers|watchers} {to|} {pick it out|recognise it} {at a distance|against the sky}.

== bird_behaviour
{It|The $name} {feeds|forages} {mainly|chiefly} {on|upon} {insects and spiders|seeds and small insects|snails and worms|beetles and caterpillars}, which it {picks|gleans} from {the ground|low plants|the water's edge|the leaves of trees}.
{Outside|After} the breeding season {it|the species} {often|usually|may} {joins|join|gathers in} {mixed flocks|small parties|loose groups} {with|of} {finches|tits|other small birds}, {moving|wandering|roaming} {through|across} {woods|fields|stubble} {in search of|looking for} food.
{Birds|Populations} {in|of} the north {migrate|move|travel} {south|southwards|to warmer districts} {in|during} {autumn|September and October}, {returning|and return} {in|by} {April|early spring|late March}, {while|whereas} {those|birds} {further south|in the lowlands} {stay|remain} {all year|through the winter}.
{It|The bird} is {often|generally|usually} {shy|wary|restless} {and|,} {keeps|keeping} {to|within} {cover|thick vegetation|the reeds}, {so that|and} {it|the species} is {more often heard than seen|easily overlooked}.
{Pairs|Territorial males} {defend|hold} {small|compact|well-marked} {territories|patches of ground} {in|during} {spring|the breeding season}, {singing|calling} {from|at} {dawn|first light} {and|and again} {in|towards} the {evening|late afternoon}.

== bird_breeding
{The nest|Its nest} is A_ {neat|loose|deep} cup of {grass|moss|roots and hair|dry leaves}, {built|placed|hidden} {low|close to the ground|in a shrub|among reeds} {by|, usually by} the female.
{The clutch|A clutch} {of|usually holds|contains} {four to six|three to five|five or six} {eggs|pale eggs}, {which|and these} {are|is} {incubated|kept warm} for {about|around} {twelve|fourteen|thirteen} days.
{Both parents|The adults} {feed|bring food to} the {young|chicks|nestlings}, {which|and they} {leave|fledge from} the nest {after|at about} {two weeks|twelve to fifteen days} {and|but} {stay|remain} {close by|nearby|with the parents} {for|during} {some time|several weeks}.
{In good years|Where food is plentiful}, {pairs|many pairs} {raise|rear} {a second brood|two broods}, {and|while} {in|further} {the north|upland areas} {a single|only one} brood is {usual|normal|the rule}.

== tree_desc
{It|The $name} {grows|reaches|can reach} {to|} {a height of|} {about|up to} $size metres, {with|forming} A_ {rounded|narrow|spreading|domed} crown and A_ {straight|short|often twisted} {trunk|bole}.
{The|Its} bark is {smooth and @colour|@colour and deeply furrowed|thin, @colour and peeling|rough and @colour} {on|in} {older trees|mature trees|young stems}, {becoming|turning} {darker|more cracked} {with|as it gains} age.
{The|Its} leaves are {oval|lobed|narrow|heart-shaped} and {finely|coarsely|sharply} toothed, {dark|bright|pale} green {above|on the upper side} and {paler|greyish|downy} {beneath|below}, {and|which} {turn|become} {yellow|bright orange|deep red|russet} in autumn.
{Small|Tiny|Pale} {flowers|blossoms} {appear|open} {in|during} $flower_month, {in|as} {clusters|loose sprays|catkins} {that|which} {attract|draw} {bees|insects|many insects}, {and|before} {the|its} {fruits|seeds} {ripen|mature} {in|by} {late summer|autumn}.
{The|Its} {wood|timber} is {hard|pale|close-grained|light} and {was|has been} {used|valued} {for|in} {tool handles|furniture|turnery|carving|fencing}, {although|though} {it|the trees} {rarely|seldom} {grow|reach} {large|big} enough {for|to provide} {building timber|long planks}.

== tree_ecology
{The tree|It} {prefers|does best on} {damp|well-drained|thin|deep} soils in {sheltered|open|sunny} positions, {and|but} {tolerates|will put up with} {exposure|poor soil|wind|shade} {better than|more than} {many|most} {other|} trees.
{Many|Numerous} {insects|kinds of insect} {feed|live} on {its|the} {leaves|bark}, {and|while} {birds|@birds and tits} {take|eat} {the|its} {seeds|fruits|berries} {in|during} {autumn|winter}.
{Its|The} {roots|root system} {help|helps} to {bind|hold} {river banks|steep slopes|loose soil}, {and|so} {it|the tree} has {often|long} been planted {to|in order to} {prevent|reduce} {erosion|landslips}.
{Old|Veteran} trees {often|frequently} {develop|become} {hollow|full of cavities}, and {these|such} hollows {provide|give} {shelter|homes} {for|to} {bats|owls|beetles and other insects}.

== tree_cycle
{Seedlings|Young trees} {grow|develop} {quickly|slowly|steadily} {in|on} {open ground|clearings|the edges of woods}, {and|but} {rarely|seldom} {survive|thrive} {in|under} {deep|heavy} shade.
{Trees|Individuals} {begin|start} to {flower|bear fruit} {at|after} {about|around} {ten|fifteen|twenty} years {of age|old}, {and|while} {some|the oldest} {specimens|trees} {are|are thought to be} {several hundred|more than two hundred} years old.
{It|The tree} {can be|is easily} {grown|raised} from {seed|cuttings}, {and|which is why} {nurseries|gardeners} {have|long} {offered|grown} {it|the species} {for|in} {parks|gardens|streets} {since|from} the {nineteenth century|Victorian period}.

== moth_desc
{The|Its} wingspan {is|measures} {about|around} $size millimetres, {and|while} the forewings are {@colour|pale @colour}, {crossed|marked} by {fine|wavy|dark} {lines|bands} {and|with} A_ {small|distinct} {dark|pale} {spot|mark} {near|towards} the {centre|tip}.
{The|Its} hindwings are {plain|pale|@colour} {and|,} {usually|mostly} {hidden|covered} {when|while} the moth {rests|is at rest}, {so that|and} {it|the insect} {blends|merges} {into|with} {bark|dead leaves|lichen-covered stone}.
{Males|The male} {have|has} {feathery|finely toothed} {antennae|feelers}, {while|whereas} {those of|} the female {are|is} {simple|thread-like}, a difference {that can be seen|easily noticed} with A_ {hand lens|magnifying glass}.
{Some|A few} {individuals|specimens} {are|appear} {much darker|almost black|unusually pale}, {and|especially} {such|these} {forms|varieties} {were|became} {common|frequent} {near|around} {industrial towns|smoky cities} {in|during} the {nineteenth century|industrial age}.

== moth_behaviour
{Adults|The moths} {fly|are on the wing} {from|in} $flower_month, {mostly|mainly} at night, and {come|are attracted} {readily|freely} {to|towards} {light|lamps|lighted windows}.
During the day {they|the moths} {rest|sit} {on|among} {tree trunks|fence posts|leaf litter|walls}, {relying on|trusting to} {their|} {camouflage|colouring} {to|in order to} {escape|avoid} {birds|notice}.
{Adults|The moths} {feed|take nectar} {at|from} {flowers|blossoms} such as {@flower|ivy|sallow catkins|honeysuckle}, {and|while} {some|a few} {also|} {visit|are drawn to} {ripe fruit|tree sap}.

== moth_cycle
{The|Its} {caterpillars|larvae} {feed|live} on {the leaves of|} {@tree|@tree and @tree|grasses|low plants}, {growing|reaching} {to|} {about|up to} {three|four} centimetres {before|and then} {pupating|forming a pupa} {in|under} {the soil|leaf litter|loose bark}.
{The species|It} {passes|spends} the winter {as|in the form of} {a pupa|an egg|a small caterpillar}, {and|with} {there is|} {one|a single} generation {each|a} year {in the north|in most districts}, {but|while} {two|a second} {in|further} {the south|warmer areas}.
{Eggs|The eggs} are {laid|placed} {singly|in small groups} {on|along} {the food plant|twigs|the undersides of leaves}, {and|where} {they|the eggs} {hatch|open} {after|within} {one|two|about three} weeks.

== fish_desc
{Adults|Adult fish} {reach|grow to} {about|up to} $size centimetres {in length|long}, {with|and have} A_ {slender|deep|rounded|torpedo-shaped} body {covered|marked} {with|in} {@colour|dark} {spots|bars|blotches} {on|over} A_ {@colour|pale|silvery} background.
{The|Its} {mouth|head} is {small|broad|blunt} {and|,} {turned downwards|set low|with fleshy barbels}, {well suited|adapted} {to searching among stones|to feeding on the river bed|to probing soft mud}.
{In|During} the spawning season {males|the males} {develop|show} {brighter|redder|darker} {colours|fins|bellies}, {and|while} {small|tiny} {white|pale} {tubercles|bumps} {appear|form} on {their|the} {heads|fins}.

== fish_behaviour
{It|The $name} {lives|is found} {in|among} {clear|cool|fast-flowing|well-oxygenated} {water|streams|rivers and lakes}, {usually|often} {close to|near} the {bottom|bed|banks}, {where|and there} it {hides|shelters} {under|among} {stones|roots|weed}.
{It|The fish} {feeds|forages} {mainly|chiefly} {at night|at dawn and dusk|by day}, {taking|on} {insect larvae|small crustaceans|worms and snails|the young of other fish}.
{Shoals|Groups} of {young|small} fish {gather|collect} {in|at} {shallow|slack|quiet} water {near|along} the {margins|edges|banks}, {while|and} {larger|older} {fish|individuals} {keep|stay} {to|in} {deeper pools|the main current}.

== fish_cycle
{Spawning|Breeding} {takes place|happens} {in|during} $flower_month, {when|as} {the fish|adults} {move|gather} {onto|over} {gravel|clean gravel|stony} {shallows|beds} {to|and} {lay|shed} {their|} eggs.
{The|Its} eggs {stick|are attached} {to|among} {stones|plants}, {and|where} {the young|the fry} {hatch|emerge} {after|within} {one|two|about three} weeks, {depending|according} {on|to} the temperature of the water.
{Fish|Young fish} {mature|become adult} {in|at} {two|three|two or three} years, {and|while} {few|some} {live|survive} {longer than|beyond} {five|six|eight} years {in the wild|in rivers}.

== plant_desc
{It is|This is} A_ {low|tufted|upright|creeping} {perennial|annual} {reaching|growing to} {about|up to} $size centimetres, {with|and bearing} {narrow|rounded|hairy|fleshy} leaves {in|forming} A_ {rosette|loose clump} {at|near} the base.
{The|Its} flowers are {@colour|deep blue|pale violet|bright yellow|white|rose-pink} {and|,} {bell-shaped|star-shaped|tubular|five-petalled}, {held|carried} {singly|in loose spikes|in small heads} {on|at the tips of} {slender|wiry|short} stems.
{The|Its} {seeds|fruits} {ripen|are shed} {in|by} {late summer|early autumn}, {and|while} {the|its} {plants|clumps} {spread|creep} {slowly|outward} {by|through} {runners|underground stems|self-seeding}.

== plant_ecology
{It|The plant} {grows|is found} {on|in} $habitat, {often|usually} {with|among} {@flower|mosses and sedges|other low plants}, {and|but} {cannot|does not} {compete|cope} {with|against} {taller|coarser} {vegetation|grasses}.
{Its|The} flowers {are|appear in $flower_month and are} {visited|pollinated} {by|mainly by} {bees|bumblebees|hoverflies|small moths}, {which|and these} {are|seem} {drawn|attracted} {by|to} {the|its} {scent|colour|nectar}.
{Grazing|Light grazing} {by|from} {sheep|cattle|ponies} {helps|benefits} the plant {by|,} {keeping|which keeps} {taller|rank} {plants|grasses} {in check|down}, {and|so} {it|the species} {often|} {disappears|declines} {where|when} grazing {stops|ends}.
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
limestone ledges and screes
the edges of bogs and flushes
old hay meadows
dunes and cliff tops
open woodland glades
"""),
}
SIZE = {"bird": (11, 34), "tree": (6, 30), "moth": (22, 80), "fish": (6, 45), "plant": (5, 60)}
FOLK = parse_bank("""
hedge sparrow
mill bird
rain bird
grey lady
river friend
fire tree
witch's broom
old man's beard
lamp moth
ghost wing
stone sucker
miller's thumb
shepherd's clock
bride's bell
""")

PLAN = [
    ("lead+intro", ["lead", "intro"], (2, 4)),
    ("Description", ["desc"], (3, 6)),
    ("Distribution and habitat", ["distribution"], (3, 5)),
    ("Behaviour and ecology", ["behaviour"], (3, 5)),
    ("Life cycle", ["cycle"], (2, 4)),
    ("Identification", ["identification"], (3, 4)),
    ("Research", ["research"], (3, 4)),
    ("People", ["people"], (3, 5)),
    ("Conservation", ["conservation"], (3, 5)),
]


def _split(s: str) -> list[str]:
    return [x.strip() for x in s.split(",") if x.strip()]


def document(rng: random.Random, kind: str) -> tuple[str, list[str]]:
    spec = KINDS[kind]
    base = rng.choice(_split(spec["bases"]))
    name = f"{rng.choice(_split(spec['mods']))} {base}"
    lo, hi = SIZE[kind]
    facts = {
        "name": name,
        "base": base,
        "kind_noun": spec["noun"],
        "latin": f"{rng.choice(_split(spec['genera']))} {rng.choice(EPITHETS)}",
        "family": rng.choice(_split(spec["family"])),
        "region_a": f"{abroad_name(rng)} {rng.choice(['uplands', 'lowlands', 'coast', 'plateau', 'basin', 'hills'])}",
        "region_b": f"{abroad_name(rng)} {rng.choice(['mountains', 'valleys', 'lake district', 'forests', 'plains', 'peninsula'])}",
        "habitat": rng.choice(HABITAT[kind]),
        "alt": str(rng.randint(4, 18) * 100),
        "size": str(rng.randint(lo, hi)),
        "river": river_name(rng),
        "town": place_name(rng),
        "folk_a": rng.choice(FOLK),
        "folk_b": rng.choice(FOLK),
        "flower_month": rng.choice(["April and May", "May and June", "June and July", "July and August",
                                    "late summer", "early spring", "March and April"]),
    }
    fill = Filler(rng, facts, V, tidy_en)
    behaviour = {"bird": "bird_behaviour", "tree": "tree_ecology", "moth": "moth_behaviour",
                 "fish": "fish_behaviour", "plant": "plant_ecology"}[kind]
    cycle = {"bird": "bird_breeding", "tree": "tree_cycle", "moth": "moth_cycle", "fish": "fish_cycle",
             "plant": None}[kind]
    banks = {**BANKS, "desc": KIND_BANKS[f"{kind}_desc"], "behaviour": KIND_BANKS[behaviour]}
    if cycle:
        banks["cycle"] = KIND_BANKS[cycle]
    paragraphs: list[str] = []
    for _heading, names, (lo_k, hi_k) in PLAN:
        if names == ["cycle"] and cycle is None:
            continue
        if names[0] == "lead":
            sentences = [fill.one(banks["lead"])] + fill.pick(banks["intro"], rng.randint(lo_k, hi_k))
        else:
            sentences = fill.pick(banks[names[0]], rng.randint(lo_k, hi_k))
        paragraphs.append(" ".join(sentences))
    if rng.random() < 0.5:  # a second distribution or people paragraph makes longer articles
        extra = rng.choice(["distribution", "conservation"])
        paragraphs.insert(-1, " ".join(fill.pick(banks[extra], 3)))
    title = name[0].upper() + name[1:]
    return title, paragraphs
