"""Encyclopedic articles about (invented) market towns and villages."""

from __future__ import annotations

import random

from corpus_gen.en_vocab import V, century, person, place_name, river_name, thousands
from corpus_gen.engine import Filler, parse_banks, tidy_en

BANKS = parse_banks("""
== lead
$town is A_ {small|modest|compact|quiet} market town {and civil parish|} in the {@region_adj|} county of $county, {lying|standing|set} on the {north|south|east|west} bank of the River $river about $miles miles from $near_city.
$town is A_ {@adj_old|} {village|small town|former market town} {in the valley of the River $river|on the lower slopes of $hill|at the point where the River $river leaves the hills}, in the county of $county.
== overview
{With|Having} a population of {about|roughly|a little over} $pop at the most recent census, $town is the {largest|second largest|oldest|busiest} settlement in its part of $county.
The town grew up {around|beside|at} {a ford|a bridge|a crossroads|a river crossing} on the River $river, and its {plan|layout|street pattern} still {follows|reflects|preserves} the {lines|shape|bounds} of the {medieval|early} settlement.
{Today|At present|Nowadays} $town is known {chiefly|mainly|above all} for its {market|$festival|buildings of @material|parish church}, and it serves as A_ {local centre|shopping centre|meeting place} for the {farms|villages|hamlets} {around it|of the surrounding valley|on the higher ground to the north}.
The name $town is {first recorded|first found|first written down} in {a charter|a survey|a tax roll|a boundary description} of the $century_found, and is usually {explained|interpreted|taken} as meaning {"the farm by the river"|"the clearing among the @trees"|"the enclosure on the hill"|"the settlement at the ford"}.
{Although|While} it has never been large, $town {has long been|was for centuries} {an important|a useful|a busy} {stopping place|market|crossing point} on the road between $near_city and the {coast|hills|county town}.
Much of the {old|historic} town lies within A_ {conservation area|protected district} {designated|drawn up|established} in the {1970s|1980s|late 1960s}, which {covers|includes} the market place, the church and the {streets|lanes} {leading down to|running towards} the river.

== geography
The {town|parish} {occupies|covers|sits on} A_ {broad|narrow|low|gentle} {shelf|terrace|spur} of {higher|drier|firmer} ground {above|beside} the {flood plain|water meadows|marshes} of the River $river.
To the {north|south|east|west} the land rises {steadily|sharply|gently} towards $hill, whose {summit|top|crest} {reaches|stands at} about $elevation metres and {gives|offers|commands} {wide|long|fine} views over the {valley|vale|plain} {below|towards $near_city}.
The {soils|fields} {around the town|of the parish} are {mostly|largely|chiefly} {heavy clay|light and sandy|thin and stony|deep loam|chalky} {, which|and} {suited|favoured|has always suited} the growing of $crop.
{Several|A number of|Two or three} {small|narrow|fast} @water {streams|brooks|becks} {run down|drain} from the {hills|high ground} and {join|feed} the $river {within the parish|just below the town|near the old mill}.
The River $river is {tidal|navigable for small boats|shallow and quick} {as far as|up to|near} $town, and {floods in the winter months regularly cover|high water after heavy rain sometimes reaches|floods in early spring occasionally cover} the {lower meadows|riverside paths|fields below the bridge}.
{Woods|Copses} of {@tree and @tree|@tree} {still cover|once covered} {much of|the steeper parts of|the northern side of} the parish, {and|while} {the valley floor|the lower ground} {is|has long been} {given over to|used for} {pasture|grazing|hay meadows}.
The {underlying|local} rock is @material, which {can be seen|shows|is exposed} in {old quarries|road cuttings|the banks of the river} and which {gave|has given} the {older|earlier} buildings their {characteristic|distinctive|familiar} colour.
{From|Seen from} the {top of|slopes of} $hill, the town {appears as|looks like} A_ {compact|tight|loose} {cluster|knot|grouping} of {roofs|chimneys|houses} {gathered around the church tower|huddled about the market place|spread along the bend of the river}.
{The parish boundary|The edge of the parish} {follows|runs along} the $river for {much of|part of} its length {and then|before it} {climbs|turns} {towards|onto} the {open|high|bare} {moor|downland|ground} {above|beyond} the {last farms|woods|quarries}.
{Meadows|Water meadows|Damp fields} {along|beside} the river {are known for|hold|are bright with} {@flowers|@flower and @flower} in {spring|early summer}, and {@birds|@birds and @birds} {breed|nest|can be seen} {along the banks|in the reed beds|in the hedgerows}.

== history_early
{Traces|Signs|Remains} of {early|prehistoric|ancient} {settlement|farming|occupation} {have been found|were found|are known} {on|near|around} $hill, {including|among them} {flint tools|a burial mound|the outline of a small enclosure|pottery fragments}.
{By|In} the $century_found the {settlement|village} {was|had become} {a small farming community|a cluster of farms|a modest manor} {held by|belonging to|under the lordship of} {a local family|the $family family|a religious house}.
{The first church|A timber church|The earliest church} {on the site|at $town} {was probably|is thought to have been} built {soon after|shortly after} the {settlement|village} {was founded|first appears in the records}, and {was later replaced by|gave way to} a stone building dedicated to $saint.
{In|By} $year_charter the {lord of the manor|$family family|abbey} {obtained|was granted|secured} {a charter|the right} to hold a {weekly market|weekly market and a yearly fair}, {and|which} {marked|was} the {beginning|start} of $town's {growth|life} as a {trading|market} town.
{Records|Surviving records|Early records} {of the period|from this time} {speak of|mention|list} {a mill on the $river|fishing weirs|a ferry|a small hospital for travellers}, {as well as|along with|and} {common fields|open fields|strips of arable land} {stretching|running|lying} {up|along} the {valley side|slope of $hill}.
The {medieval|early} town {was|remained} {small|compact}, {probably|perhaps} {no more than|fewer than} {a few dozen|forty or fifty|some thirty} households, {gathered|grouped} {around|along} the market place and the road {down to|towards} the {river|ford}.
{Like many places in $county|As elsewhere in the region}, $town {suffered|was hit hard} {during|in} the {outbreaks of plague|hard years|famines} of the {fourteenth century|later middle ages}, and {some|several} {outlying|smaller} {farms|hamlets} {were abandoned|disappeared} {at this time|for good}.
{A bridge|The first bridge} {over|across} the $river {is recorded|is mentioned} {in|by} the $century_found, {replacing|taking the place of} {the ford|an older ford|a ferry} {that had given the town its name|that had served travellers for generations}.
{The town's|$town's} {position|location} on the road {to|from} $near_city {brought|gave it} {traffic|trade|visitors} {from an early date|early on}, and {inns|alehouses|lodging houses} {are recorded|were established} {in|around} the market place {by the fifteenth century|before long}.
{The manor|The estate} {passed|changed hands} {several times|more than once} {during|over} the {following|next} {two|three} centuries, {but|yet} {the pattern of|the routine of} {market and fields|farming and trade} {changed|altered} {little|only slowly}.

== history_mid
{During|In} the {seventeenth and eighteenth centuries|eighteenth century}, $town {became a centre of|became known for|grew into a centre of} $trade1, {which|and this} {brought|drew} {new families|workers|merchants} {into|to} the town.
{In|By} $year_mill A_ {mill|works|factory} {for|devoted to} $trade1 {was built|was opened|stood} {beside|on} the $river, {using|driven by} {the water of the river|a long leat|a great wheel}, and {at its height|for a time} {it employed|it gave work to} {much of the town|more than a hundred people|many local families}.
{The $family family|$founder}, {who|whose family} {had|had long} {made money|prospered} in $trade2, {built|paid for} A_ {handsome|large|plain} house {on|at} the {edge|top} of the town and {later|eventually} {gave|left} {money|land} for {a school|almshouses|the rebuilding of the church tower}.
{A serious fire|A great fire|A fire} in $year_fire {destroyed|burnt down|damaged} {much of|a large part of|several houses in} $street, {and|after which} {the houses|the buildings} {were rebuilt|went up again} in @material {rather than|instead of} {timber and thatch|the older timber}.
{The coming of|The arrival of|The opening of} the railway in $year_railway {changed|transformed|altered} the {town|life of the town} {considerably|greatly|in many ways}: {cattle|goods|produce} {could now be sent|now went} {to $near_city|to distant markets} {in hours rather than days|more quickly than before}, {and|while} {the old coaching inns|the carriers' carts|the river trade} {lost|declined in} {business|importance}.
{Local|Small} {workshops|industries} {making|producing|turning out} {goods for|articles for|supplies for} $trade2 {flourished|did well} {in|during} the {nineteenth century|Victorian years}, {and|although} {most|many} {had closed|had disappeared} {by|before} the {1930s|end of the century|First World War}.
{Many of|Most of} the {houses|terraces|cottages} {in|along} $street2 {date from|were built in} {this period|the 1850s and 1860s|the later nineteenth century}, {when|as} the {population|town} {grew|expanded} {quickly|rapidly} {with|because of} the {new|expanding} $trade1 {works|trade}.
{Methodist|Baptist|Congregational} {chapels|meeting houses} {were built|opened} {in|during} the {nineteenth century|1830s and 1840s}, {and|while} {the parish church|the church of $saint} {was|itself was} {restored|enlarged|heavily restored} in the {1870s|1880s}.
{A grammar school|A national school|A school} {was opened|was founded} in $year_school, {replacing|taking over from} {a small charity school|classes held in the church|a dame school} {that had met|which had met} {in the vestry|in a cottage on $street}.
{Agricultural depression|Low prices for grain|Poor harvests} {in|during} the {late nineteenth century|1870s and 1880s} {hit|affected} the {surrounding|local} {farms|parish} {hard|badly}, {and|so that} {many|a number of} {families|young people} {left|moved} {for|to} $near_city {or|and} {further afield|overseas}.

== history_modern
{During|In} the {twentieth century|years after 1900} $town {remained|stayed} {largely|mainly} A_ {agricultural|market} town, {although|though} {the|its} $trade1 {works|industry} {continued|carried on} {until|into} the {1960s|1950s|1970s}.
The {railway|branch line} {closed|was closed} {to passengers|entirely} in the {1960s|early 1960s|late 1950s}, {and|but} the {station building|old goods shed} {survives|still stands} {as|and is now} {a private house|a workshop|a small museum}.
{New housing|Estates of new houses|Housing developments} {were built|went up|spread} {on|across} the {fields|land} {to the|on the} {north|south|east|west} of the town {from the 1960s onwards|in the 1970s and later|from the 1970s onwards}, {roughly|nearly|more than} doubling {its size|the population}.
{A bypass|A new road}, {opened|completed} in $year_bypass, {took|carried} {through traffic|heavy lorries|most of the traffic} {away from|out of} the {narrow|old} {streets|centre}, {and|which} {made the market place quieter again|allowed the market place to become a pleasant place to linger}.
The {closure|loss} of the {last|old} $trade1 {works|mill} in the {1970s|1980s} {was|came as} A_ {blow|hard blow} {to|for} the town, {but|though} {its buildings have been|the site has been} {converted into|turned into} {flats|workshops|a heritage centre}.
{Since|From} the {1990s|late 1980s}, {the town|$town} has {become|grown} {popular|well known} {with|among} {walkers|visitors|people who work in $near_city}, {and|while} {several|a number of} {shops|old shops|buildings} {on|around} the market place {now|today} {serve|cater for} {visitors|tourists|day-trippers}.
{In|During} the {second half of the twentieth century|post-war years}, {farming|agriculture} in the parish {changed|became} {greatly|more mechanised}: {the number of|the} {farm workers|people working the land} {fell|declined} {sharply|steadily}, {and|while} {many|several} {farmhouses|barns} {were sold|were converted} {as homes|into houses}.
{A campaign by local people|Efforts by the town council} in the {1970s|1980s} saved the old $landmark_building {from demolition|from being pulled down}, and {it now houses a small museum|today it holds community rooms|it is now used as a library}.
{Flooding|Serious floods} in {the winter of|} {2000|2007|1998|2012} {affected|damaged} {houses|homes and shops} {near|along} the river, {and|after which} {new|higher} {flood defences|embankments} were {built|raised} {along|beside} the $river.

== economy
{Farming|Agriculture} {remains|is still} {important|significant} in the {parish|surrounding area}, {with|and there is} {a mixture of|mainly|mostly} {dairy and arable|sheep and beef cattle|cereal and fruit} {farms|farming}.
The {weekly|Thursday|Saturday} market {still takes place|is still held} in the market place, {selling|where stalls sell} {local produce|vegetables, cheese and bread|food, plants and household goods}, {and|while} A_ {farmers' market|craft market} {is held|takes place} {once a month|on the first Saturday of each month}.
{Small|Several} {businesses|firms|workshops} {on|at} {an industrial estate|a small business park|the site of the old works} {near|beside} the {bypass|station} {make|produce} {furniture|machine parts|packaging|specialist foods}, {and|while} {others|many residents} {travel|commute} to $near_city {for work|each day}.
{Tourism|Visitors} {bring|brings} {a good deal of|considerable|some} {trade|income} {to|into} the town, {especially|particularly} {in summer|during the $festival|at weekends}, {and|with} {several|a number of} {guest houses|inns|cafés} {in|around} the centre.
{Orchards|Fields} of $crop {were once|used to be} {common|widespread} {in|around} $town, {and|although} {a few|some} {still|remain and} {supply|sell to} {local shops|the market|a small producer}.
The {town|main street} {has|keeps} A_ {range|good range} of {shops|independent shops}, {including|among them} A_ {butcher|bakery|bookshop|hardware shop|chemist}, {a|and a} {post office|bank|pharmacy} {and|as well as} {several|a number of} {pubs|inns|cafés}.
{The|An} {old|former} $trade1 {works|mill} {now|today} {houses|contains} {small businesses|studios|a brewery|offices}, {and|while} {the|its} {yard|chimney} {remains|is} A_ {local landmark|familiar sight}.
{Quarrying|Extraction} of @material {continued|went on} {near|above} the town {until|into} the {1990s|1980s}, {and|but} {the old quarries|the workings} {are now|have since become} {nature reserves|fishing lakes|overgrown and quiet}.
{Many|Most} {residents|people} {work|are employed} {in|at} {the schools|the health centre|shops and services|local farms}, {or|and many} {travel|commute} {daily|each day} to $near_city, {which|and this} {can be reached|is reached} {in|within} {half an hour|forty minutes|an hour} {by road|by bus}.

== landmarks
The {parish church|church} of $saint, {built|begun} {largely|mainly} in the {fourteenth|fifteenth|thirteenth} century, {has|is known for} A_ {tall|sturdy|graceful} {west tower|spire|tower} {that|which} {can be seen|is visible} {from|across} {much of the valley|the fields|miles around}.
{Inside|Within} the church {are|there are} {fine|carved} {wooden pews|screens|bench ends}, A_ {medieval|Norman} {font|doorway} and {memorials|monuments} {to|of} the $family family, {who|whose members} {held|owned} the {manor|estate} for {generations|more than two centuries}.
The {market hall|old market house|butter cross}, A_ {small|modest|open} {building|structure} {raised|standing} on {stone pillars|columns|arches}, {dates from|was built in} the {seventeenth|eighteenth} century {and|, and} {was used|served} for {the sale of|selling} {butter|grain|cloth} {and|as well as} {eggs|cheese|poultry}.
{The|A} {bridge|old bridge} {over|across} the $river {has|is carried on} {three|five|four} {arches|stone arches} {and|, and} {is|has been} {one of the oldest|among the oldest} {in $county|in the county|in the district}; {it|the bridge} {was widened|was repaired} in the {eighteenth|nineteenth} century.
{Along|On} $street {there are|are} {several|many|a number of} {fine|handsome|old} {houses|town houses|shopfronts} {in|of} @material, {some|many} {with|having} {bow windows|carved doorways|timber fronts} {from|of} the {eighteenth|seventeenth} century.
{The|A} {former|old} $landmark_building {near|beside|opposite} the {church|river|market place} {is|was} {now|converted into|used as} {a museum|a community centre|a private house|a library}, {where|and} {displays|exhibitions} {tell|describe} the {history|story} of $trade1 in the town.
{On|Near} the {edge|outskirts} of the town {stands|is} A_ {restored|preserved} {watermill|windmill|dovecote}, {and|which} {is|can be} {opened|open} {to visitors|to the public} {on summer weekends|during the $festival|several times a year}.
{The|A} {war memorial|drinking fountain|clock tower} {in|at} the {centre|middle} of the market place {was|is} {erected|put up} {in|after} {1920|1897|1921|1887} {and|, and} {is|remains} A_ {meeting place|point of reference} {for|among} {local people|residents}.
{Several|A number of} {footpaths|bridleways|old tracks} {lead|run} {from|out of} the town {up|over} $hill {and|or} {along|beside} the $river, {passing|past} {old lime kilns|the remains of a chapel|boundary stones|ancient hedgerows}.

== culture
The $festival, {held|which takes place} {every|each} $festival_month, {is|has been} {the town's|$town's} {best-known|main|oldest} {event|tradition|celebration}, {and|which} {draws|brings} {visitors|crowds|people} {from|across} {the county|$county|miles around}.
{During|On the day of} the $festival the {streets|market place} {are|is} {filled|lined} with {stalls|music|people}, {and|while} {children|local schools|bands} {take part in|join} A_ {procession|parade|procession through the town} {that|which} {ends|finishes} {at|near} the {church|river|market cross}.
{The town|$town} {has|supports} A_ {brass band|choir|drama group|cricket club}, {founded|formed} in the {1880s|1890s|1920s}, {which|and this} {still|continues to} {perform|play|meet} {regularly|each week}.
{Local|Regional} {tradition|custom} {holds|says} {that|how} {the bells|a bell|the church bells} of $saint {were|had been} {cast|brought} {from|in} $near_city, {and|while} {the|a} {ringers|band of ringers} {still|continue to} {ring|practise} {on|every} {Tuesday evenings|Friday evenings|Sundays}.
{Writers|Painters|Artists} {have long been|were often} {drawn|attracted} to $town {by|because of} {its setting|the river|the light on the valley}, {and|while} {one|a} {nineteenth-century|Victorian} {novelist|poet|painter} {is said to have|may have} {based|set} {part of|one of} {a book|a well-known work} {on|in} the town.
{Older|Long-standing} {residents|people} {still|sometimes} {use|speak} {local|dialect} {words|names} {for|to describe} {the fields|the weather|features of the river}, {many of which|several of which} {are|were} {recorded|collected} {by|in} A_ {local|parish} {history society|survey} {in the 1970s|some years ago}.
The {town|parish} {library|reading room}, {founded|opened} {in the nineteenth century|as a mechanics' institute}, {remains|is still} A_ {busy|popular|well-used} {place|meeting place}, {holding|with} A_ {collection|good collection} of {books|photographs|records} {on|about} {local history|the town's past}.
{A local|The} {history society|civic society} {publishes|produces} A_ {yearly|twice-yearly} {journal|newsletter} {and|, and} {arranges|organises} {talks|walks} {on|about} {the town's buildings|old trades|the history of the valley}.
{Food|Cooking} in $town {has|keeps} {its own|a few} {traditions|specialities}, {among them|including} A_ {kind of|type of} {spiced bun|fruit loaf|cake} {made|baked} {for|at} the $festival {and|as well as} {pies|pasties} {sold|eaten} {at|on} market day.

== transport
The {town|$town} {lies|stands} on the {main road|A road|old road} {between|from} $near_city {and|to} the {coast|hills|county town}, {and|with} {buses|regular buses} {run|running} {several times a day|hourly|every two hours} {to|towards} $near_city.
{The nearest|Its nearest} {railway station|station} {is|is now} {at|in} $near_city, {some|about} $miles miles {away|to the north|distant}, {the town's own|since the local} station {having closed|closed} {in the 1960s|many years ago}.
{Narrow|Winding} {lanes|roads} {lead|run} {out of|from} the {town|market place} {to|towards} the {surrounding|outlying} {villages|hamlets}, {many|some} {of them|} {following|along} {old|ancient} {droveways|routes used by drovers|packhorse tracks}.
The {old|former} {railway line|trackbed} {has been|is now} {turned into|converted to} A_ {footpath|cycle path} {running|that runs} {along|beside} the $river {to|towards} {the next village|$near_city}.
{Until|Before} the {coming of the railway|nineteenth century}, {goods|produce} {were carried|went} {by|on} {packhorse|cart|barge} {along|down} the {river|valley} {to|towards} {the coast|$near_city|the nearest port}.

== climate
{Like|As in} the rest of $county, $town {has|enjoys} A_ {mild|temperate|damp|changeable} climate, {with|and} {cool|mild} summers and {winters|winters that are} {rarely|seldom} {severe|very cold}.
{Rain|Rainfall} {is|tends to be} {heaviest|highest} {in|during} the {autumn and winter|late autumn}, {when|and} {westerly|south-westerly} {winds|gales} {bring|can bring} {storms|heavy showers} {in from|over from} the {coast|hills}.
{Fog|Mist} {often|frequently|sometimes} {lies|gathers|settles} in the {valley|river valley} {on|during} {autumn|still} {mornings|nights}, {while|and} the {higher ground|slopes of $hill} {remain|stays} {in sunshine|clear}.
{Snow|Heavy snow} {is|has been} {uncommon|rare} {in|on} the {lower|valley} {ground|floor}, {but|though} $hill {is|can be} {sometimes|occasionally} {cut off|white} {for|over} {a few days|several days} {in|during} {January|February|hard winters}.

== present
{Today|At present} $town {has|keeps} A_ {primary school|secondary school|primary school and a secondary school}, A_ {health centre|doctor's surgery}, {a library|a fire station} and {several|a number of} {churches|places of worship}.
{The town council|A town council|The parish council} {meets|holds its meetings} {in|at} the {town hall|old $landmark_building|community centre} {and|, and} {looks after|is responsible for} {the market|allotments|footpaths and open spaces}.
The population has {grown slowly|risen steadily} {since the 1990s|over the last few decades}, {and|with} {many|a good number of} {newcomers|younger families} {moving|coming} {from|out of} $near_city.
{Visitors|People} {come|return} {for|to enjoy} {the walks|the river|the market|the $festival}, {and|while} the {town|centre} {keeps|retains|has kept} {much of|a great deal of} {the character|the charm|the appearance} {it had|of} {a century ago|earlier times}.
{Plans|Proposals} for {new housing|more houses|a larger supermarket} on the {edge of town|fields by the river} have {been the subject of some debate|caused some argument} in the town {in recent years|lately}.
{Sports|Sporting} {clubs|teams} {include|in the town include} {football|cricket|bowls|rowing} {and|as well as} {tennis|angling|rugby} {clubs|sides}, {several|most} of {which|them} {use|play at} the {recreation ground|playing fields} {beside|near} the $river.
""")

PLAN = [
    ("Overview", "overview", (3, 4)),
    ("Geography", "geography", (4, 6)),
    ("Early history", "history_early", (4, 6)),
    ("Growth of the town", "history_mid", (4, 6)),
    ("Modern times", "history_modern", (4, 6)),
    ("Economy", "economy", (4, 6)),
    ("Landmarks", "landmarks", (4, 6)),
    ("Culture and traditions", "culture", (4, 6)),
    ("Transport", "transport", (3, 4)),
    ("Climate", "climate", (3, 4)),
    ("The town today", "present", (3, 5)),
]


def facts(rng: random.Random) -> dict[str, str]:
    town = place_name(rng)
    year_found = rng.randint(900, 1250)
    founder_first, founder_last, _ = person(rng, "m")
    return {
        "town": town,
        "county": place_name(rng) + "shire" if rng.random() < 0.5 else place_name(rng),
        "river": river_name(rng),
        "hill": f"{place_name(rng)} {rng.choice(V['hill_suffix'])}",
        "near_city": place_name(rng),
        "founder": f"{founder_first} {founder_last}",
        "family": rng.choice(V["surname"]),
        "year_found": str(year_found),
        "century_found": century(year_found),
        "year_charter": str(rng.randint(1200, 1320)),
        "year_mill": str(rng.randint(1760, 1840)),
        "year_fire": str(rng.randint(1640, 1790)),
        "year_railway": str(rng.randint(1846, 1885)),
        "year_school": str(rng.randint(1820, 1880)),
        "year_bypass": str(rng.randint(1968, 1998)),
        "trade1": rng.choice(V["trade"]),
        "trade2": rng.choice(V["trade"]),
        "crop": rng.choice(V["crop"]),
        "saint": rng.choice(V["saint"]),
        "festival": rng.choice(V["festival"]),
        "festival_month": rng.choice(V["month"]),
        "pop": thousands(rng.randint(9, 140) * 100),
        "miles": str(rng.randint(4, 22)),
        "elevation": str(rng.randint(12, 55) * 10),
        "street": rng.choice(V["street"]),
        "street2": rng.choice(V["street"]),
        "landmark_building": rng.choice(V["building"]),
    }


def document(rng: random.Random) -> tuple[str, list[str]]:
    """Title and paragraphs of one place article."""
    fill = Filler(rng, facts(rng), V, tidy_en)
    paragraphs: list[str] = []
    lead = fill.one(BANKS["lead"])
    for _heading, bank, (lo, hi) in PLAN:
        if bank in ("transport", "climate") and rng.random() < 0.35:
            continue
        n_par = 2 if bank.startswith("history") and rng.random() < 0.4 else 1
        for _ in range(n_par):
            sentences = fill.pick(BANKS[bank], rng.randint(lo, hi))
            if bank == "overview":
                sentences.insert(0, lead)
            paragraphs.append(" ".join(sentences))
    return fill.facts["town"], paragraphs
