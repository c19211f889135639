"""Encyclopedic articles about (invented) market towns and villages."""

from __future__ import annotations

import random

from corpus_gen.en_vocab import FESTIVALS, TRADES, V, century, person, place_name, river_name, thousands
from corpus_gen.engine import Filler, parse_banks, tidy_en

BANKS = parse_banks("""
== lead
$town is A_ {small|modest|compact|quiet} market town {and civil parish|} in the {@region_adj|} county of $county, {lying|standing|set} on the {north|south|east|west} bank of the River $river about $miles miles from $near_city.
$town is A_ {@adj_old|} {small town|former market town|market town} {in the valley of the River $river|on the lower slopes of $hill|at the point where the River $river leaves the hills}, in the county of $county.

== overview
{With|Having} a population of {about|roughly|a little over} $pop at the most recent census, $town is the {largest|second largest|oldest|busiest} settlement in its part of $county.
The town grew up {around a ford|beside a bridge|at a crossing} on the River $river, and its {plan|layout|street pattern} still {follows|reflects|preserves} the {lines|shape} of the {medieval|early} settlement.
{Today|At present|Nowadays} $town is known {chiefly|mainly|above all} for its {market|$festival|buildings of $stone|parish church}, and it serves as A_ {local centre|shopping centre|market centre} for the {farms|villages|hamlets} {around it|of the surrounding valley|on the higher ground to the north}.
The name $town is {first recorded|first found|first written down} in {a charter|a survey|a tax roll|a boundary description} of the $century_found, and is usually {explained|interpreted|taken} as meaning {"the farm by the river"|"the clearing among the @trees"|"the enclosure on the hill"|"the settlement at the ford"}.
{Although|While} it has never been large, $town {has long been|was for centuries} {an important|a useful|a busy} {stopping place|market|crossing point} on the road between $near_city and the {coast|hills|county town}.
Much of the {old|historic} town lies within A_ {conservation area|protected district} {designated|drawn up|established} in the {1970s|1980s|late 1960s}, which {covers|includes} the market place, the church and the {streets|lanes} {leading down to|running towards} the river.

== geography
The {town|parish} {occupies|stands on} A_ {broad|narrow|low} {shelf|terrace|spur} of {higher|drier|firmer} ground {above|beside} the {flood plain|water meadows|marshes} of the River $river.
To the {north|south|east|west} the land rises {steadily|sharply|gently} towards $hill, whose {summit|top|crest} {reaches|stands at} about $elevation metres and {gives|offers|commands} {wide|long|fine} views over the {valley|vale|plain} {below|towards $near_city}.
The soils {around the town|of the parish} are {mostly|largely|chiefly} {heavy clay|light and sandy|thin and stony|deep loam|chalky}, {and have long been used for growing $crop|which suit the growing of $crop|and $crop has been grown on them for centuries}.
{Several|A number of|Two or three} {small|narrow|fast} {streams|brooks|becks} {run down|drain} from the {hills|high ground} and {join|feed} the $river {within the parish|just below the town|near the old mill}.
The River $river is {tidal|navigable for small boats|shallow and quick} as far as $town, and {floods in the winter months regularly cover|high water after heavy rain sometimes reaches|floods in early spring occasionally cover} the {lower meadows|riverside paths|fields below the bridge}.
{Woods|Copses} of {@tree and @tree|@tree} {still cover|once covered} {much of|the steeper parts of|the northern side of} the parish, {and|while} {the valley floor|the lower ground} {is|has long been} {given over to|used for} {pasture|grazing|hay meadows}.
The {underlying|local} rock is $rock, which {can be seen|is exposed} in {old quarries|road cuttings|the banks of the river} and which {gave|has given} the {older|earlier} buildings their {characteristic|distinctive|familiar} colour.
{From|Seen from} the {top|slopes} of $hill, the town {appears as|looks like} A_ {compact|tight|loose} {cluster|knot|huddle} of {roofs|chimneys|houses} {gathered around the church tower|grouped about the market place|spread along the bend of the river}.
{The parish boundary|The edge of the parish} {follows|runs along} the $river for {much of|part of} its length {and then|before it} {climbs|turns} {towards|onto} the {open|high|bare} {moor|downland|hillside} {above|beyond} the {last farms|woods|quarries}.
{Meadows|Water meadows|Damp fields} {along|beside} the river {are known for|are bright with} {@flowers|@flowers and @flowers} in {spring|early summer}, and {@birds|@birds and @birds} {nest|can be seen} {along the banks|in the reed beds|in the hedgerows}.

== history_early
{Traces|Signs|Remains} of {early|prehistoric|ancient} {settlement|farming|occupation} {have been found|are known} {on|near|around} $hill, {including|among them} {flint tools|a burial mound|the outline of a small enclosure|pottery fragments}.
{By the $century_found the settlement had become|In the $century_found the village was} {a small farming community|a cluster of farms|a modest manor} {held by|belonging to|under the lordship of} {a local family|the $family family|a religious house}.
{The first church|A timber church|The earliest church} {on the site|at $town} {was probably|is thought to have been} built {soon after|shortly after} the {settlement|village} {was founded|first appeared in the records}, and {was later replaced by|gave way to} a stone building dedicated to $saint.
In $year_charter the {lord of the manor|$family family|abbot of a neighbouring abbey} {obtained|was granted|secured} {a charter|the right} to hold a {weekly market|weekly market and a yearly fair}, {and this marked|which marked} the {beginning|start} of $town's {growth|life} as a {trading|market} town.
{Records|Surviving records|Early records} {of the period|from this time} {speak of|mention|list} {a mill on the $river|fishing weirs|a ferry|a small hospital for travellers}, {as well as|along with} {common fields|open fields|strips of arable land} {stretching|running|lying} {up|along} the {valley side|slope of $hill}.
The {medieval|early} town {was|remained} {small|compact}, {probably no more than a few dozen households|perhaps forty or fifty households|with perhaps thirty households}, {gathered|grouped} {around|along} the market place and the road {down to|towards} the {river|ford}.
{Like many places in $county|As elsewhere in the region}, $town {suffered|was hit hard} {during|in} the {outbreaks of plague|hard years|famines} of the {fourteenth century|later Middle Ages}, and {some|several} {outlying|smaller} {farms|hamlets} {were abandoned|disappeared} {at this time|for good}.
{A bridge|The first bridge} {over|across} the $river {is recorded|is mentioned} in the $century_charter, {replacing an older ford|taking the place of a ferry that had served travellers for generations}.
{The town's|$town's} {position|location} on the road {to|from} $near_city {brought|drew} {traffic|trade|travellers} {from an early date|early on}, and {inns are recorded around the market place by the fifteenth century|several inns had opened around the market place by the fifteenth century}.
{The manor|The estate} {passed through several families|changed hands more than once} {during|over} the {following|next} {two|three} centuries, {but|yet} the {pattern|routine} of {market and fields|farming and trade} {changed|altered} {little|only slowly}.

== history_mid
{During|In} the {seventeenth and eighteenth centuries|eighteenth century}, $town {became a centre of|became known for|grew into a centre of} $trade1, {which|and this} {brought|drew} {new families|workers|merchants} {into|to} the town.
{A serious fire|A great fire|A fire} in $year_fire {destroyed|burnt down|damaged} {much of|a large part of|several houses in} $street, {and|after which} the {houses|buildings} {were rebuilt|went up again} in $stone {rather than|instead of} {timber and thatch|the older timber}.
In $year_mill A_ $works1 was {built|opened} beside the $river, {on land bought from the $family family|where it could draw on the water of the river}, and {at its height|for a time} it {employed much of the town|gave work to more than a hundred people|gave work to many local families}.
{The $family family, who had long prospered in $trade2,|$founder, whose family had made money in $trade2,} built A_ {handsome|large|plain} house {on|at} the {edge|top} of the town and {later|eventually} {gave|left} {money|land} for {a school|almshouses|the rebuilding of the church tower}.
A {Methodist|Baptist|Congregational} chapel {was built|opened} in the {1830s|1840s}, {and|while} the parish church of $saint was {restored|enlarged|heavily restored} in the {1870s|1880s}.
{A grammar school|A national school|A school} {was opened|was founded} in $year_school, {replacing a small charity school that had met in the vestry|taking over from a dame school kept in a cottage on $street}.
{The coming of|The arrival of|The opening of} the railway in $year_railway {changed|transformed|altered} the {town|life of the town} {considerably|greatly|in many ways}: {cattle|goods|produce} {could now be sent|now went} {to $near_city|to distant markets} {in hours rather than days|more quickly than before}, {and the old coaching inns lost their trade|while the carriers' carts disappeared from the roads|and the river trade declined}.
{Many of|Most of} the {houses|terraces|cottages} {in|along} $street2 {date from|were built in} {this period|the 1850s and 1860s|the later nineteenth century}, {when the $works1 was at its busiest|as the town grew with the $trade1 trade}.
Smaller trades such as {basket-making|wool-combing|net-making} and $trade2 {flourished|did well} {in|during} the {nineteenth century|Victorian years}, {although most had disappeared by the First World War|but few of them survived the 1930s}.
{Agricultural depression|Low prices for grain|A run of poor harvests} in the {late nineteenth century|1870s and 1880s} hit the {surrounding farms|farms of the parish} hard, and {many families left for $near_city or went overseas|a number of young people moved to $near_city or further afield}.

== history_modern
{During|In} the {twentieth century|years after 1900} $town {remained|stayed} {largely|mainly} A_ {agricultural|market} town, {although|though} its $works1 {continued|carried on} until the $works_closed.
{In|During} the {second half of the twentieth century|post-war years}, farming in the parish {changed greatly|became heavily mechanised}: the number of {farm workers|people working the land} fell {sharply|steadily}, and {many farmhouses were sold as homes|several barns were converted into houses}.
The {railway|branch line} {closed|was closed} {to passengers|entirely} in the $rail_closed, {and the station building survives as a private house|but the old goods shed still stands and is now a workshop}.
The {closure|loss} of the $works1 in the $works_closed {was|came as} A_ {blow|hard blow} {to|for} the town, {but|though} {its buildings have since been|the site has since been} {converted into|turned into} $works_now.
{Estates of new houses went up|New housing spread} on the fields to the {north|south|east|west} of the town {from the 1960s onwards|in the 1970s and later}, {roughly doubling its size|nearly doubling the population}.
{A campaign by local people|Efforts by the town council} in the {1970s|1980s} saved the old $landmark_building {from demolition|from being pulled down}, and {it now houses $landmark_use|today it houses $landmark_use}.
{A bypass|A new road}, {opened|completed} in $year_bypass, {took|carried} {through traffic|heavy lorries|most of the traffic} {away from|out of} the {narrow|old} {streets|centre}, {and made the market place quieter again|which allowed the market place to become a pleasant place to linger}.
Since the {1990s|late 1980s}, $town has become popular with {walkers|people who work in $near_city}, and {several|a number of} old shops on the market place now {cater for day-trippers|sell gifts and local food}.
{Flooding|Serious flooding} in {the winter of|} {2000|2007|1998|2012} {affected|damaged} {houses|homes and shops} {near|along} the river, {and|after which} {new|higher} {flood defences|embankments} were {built|raised} {along|beside} the $river.

== economy
{Farming|Agriculture} {remains|is still} important in the {parish|surrounding area}, {with a mixture of dairy and arable farms|with sheep and beef cattle on the higher ground|with cereals on the lower fields and sheep on the hills}.
The {weekly|Thursday|Saturday} market {still takes place|is still held} in the market place, {selling|where stalls sell} {local produce|vegetables, cheese and bread|food, plants and household goods}, {and|while} A_ {farmers' market|craft market} {is held|takes place} {once a month|on the first Saturday of each month}.
{Small|Several} {businesses|firms|workshops} {on an industrial estate near the bypass|on a small business park on the edge of the town} {make|produce} {furniture|machine parts|packaging|specialist foods}.
Visitors bring {a good deal of|considerable|some} trade to the town, {especially|particularly} {in summer|during the $festival|at weekends}, and {several guest houses and cafés have opened in the centre|there are a number of guest houses in and around the centre}.
{Orchards of $fruit were once common around $town, and a few still supply the market|$crop was once grown on many farms around $town, and a few still supply a local producer}.
The {town|main street} has A_ {range|good range} of {shops|independent shops}, including {a butcher, a bakery and a bookshop|a hardware shop, a chemist and a bakery|a butcher, a greengrocer and a post office}, as well as {several pubs|a number of cafés|two or three inns}.
The chimney of the old $works1 still stands above the roofs, and is A_ {local landmark|familiar sight}.
Quarrying of $rock {continued|went on} {near|above} the town until the {1980s|1990s}, {and the old workings are now nature reserves|and the old quarries have since become fishing lakes|but the old quarries are now overgrown and quiet}.
Many residents work {in shops and services|on local farms|in the schools and the health centre}, and many others {travel|commute} to $near_city, which {can be reached|is reached} in {half an hour|about forty minutes} by {road|bus}.

== landmarks
The {parish church|church} of $saint, {built largely|mostly built} in the {fourteenth|fifteenth|thirteenth} century, {has|is known for} A_ {tall|sturdy|graceful} {west tower|spire|tower} {that can be seen from much of the valley|which is visible for miles around|that stands out above the fields}.
Inside the church {are|there are} {fine|carved} {wooden pews|screens|bench ends}, A_ {medieval|Norman} {font|doorway} and {memorials|monuments} {to|of} the $family family, {who|whose members} {held|owned} the {manor|estate} for {generations|more than two centuries}.
The {market hall|old market house|butter cross}, A_ {small|modest|open} {building|structure} {raised|standing} on {stone pillars|columns|arches}, {dates from|was built in} the {seventeenth|eighteenth} century and was used for {the sale of|selling} {butter|grain|cloth} {and|as well as} {eggs|cheese|poultry}.
The old bridge {over|across} the $river {has three arches|is carried on five stone arches|has four arches} and is {one of the oldest|among the oldest} {in $county|in the county|in the district}; it was {widened|repaired} in the {eighteenth|nineteenth} century.
{Along|On} $street there are {several|a number of} {fine|handsome} {houses|town houses} {of $stone|in brick}, some with {bow windows|carved doorways|shopfronts} of the {eighteenth|early nineteenth} century.
On the {edge|outskirts} of the town stands A_ {restored|preserved} {watermill|windmill|dovecote}, which is open to visitors {on summer weekends|during the $festival|a few times a year}.
{The war memorial in the market place, put up in 1920, is the focus of a service every November|The war memorial by the church was put up in 1921 and still carries fresh wreaths every November|The drinking fountain in the market place was put up for the jubilee of 1887 and is still a meeting place for local people|The clock tower in the market place was built for the jubilee of 1897 and is still a point of reference for local people}.
{Several|A number of} {footpaths|bridleways|old tracks} lead from the town {up onto $hill|along the $river}, past {old lime kilns|the remains of a chapel|boundary stones|ancient hedgerows}.

== culture
The $festival, held every $festival_month, is {the town's|$town's} {best-known|oldest} {event|tradition}, and {draws visitors from across the county|brings crowds from miles around}.
{During|On the day of} the $festival {the streets are lined with stalls|the market place is filled with music}, and {children from the local schools join a procession that ends at the church|the town band leads a parade that finishes by the river}.
$town has {a brass band, formed in the 1880s, which still plays at fêtes and on Remembrance Sunday|a choir, founded in the 1890s, which still meets every week|an amateur drama group, formed in the 1920s, which puts on two plays a year}.
{Local tradition holds|It is said} that the bells of $saint were cast in $near_city, and {a band of ringers still practises there every Tuesday evening|they are still rung every Sunday morning}.
{Painters and writers|Artists} have long been drawn to $town by {its setting|the river|the light on the valley}, and {a Victorian novelist is said to have set part of a well-known book in the town|a nineteenth-century painter made many studies of its streets|a minor Victorian poet wrote several poems about the river}.
{Older residents|Long-standing residents} still use dialect words for {the fields|the weather|features of the river}, {many of which were recorded by a local history society in the 1970s|several of which were written down in a parish survey some years ago}.
The {town|parish} {library|reading room}, {founded|opened} {in the nineteenth century|as a mechanics' institute}, remains A_ {busy|popular|well-used} {place|meeting place}, {holding|with} A_ {collection|good collection} of {books|photographs|records} {on|about} {local history|the town's past}.
{A local|The} {history society|civic society} {publishes|produces} A_ {yearly|twice-yearly} {journal|newsletter} and {arranges|organises} {talks on the town's buildings|walks along the old parish boundary|talks about old trades and the history of the valley}.
{Food|Cooking} in $town {has|keeps} {its own|a few} {traditions|specialities}, {among them|including} A_ {kind of|type of} {spiced bun|fruit loaf|cake} {made|baked} for the $festival and {pies|pasties} {sold|eaten} on market day.

== transport
$town {lies|stands} on the {main road|old road} between $near_city and the {coast|hills|county town}, and {regular buses run to $near_city several times a day|buses run hourly to $near_city}.
The nearest railway station is now at $near_city, about $miles miles away, {the town's own station having closed in the $rail_closed|since the town's own station closed in the $rail_closed}.
{Narrow|Winding} {lanes|roads} {lead|run} {out of|from} the {town|market place} {to|towards} the {surrounding|outlying} {villages|hamlets}, {many of them following old droveways|some of them following ancient packhorse tracks}.
The old railway line has been {turned into|converted into} A_ {footpath|cycle path} {running|that runs} {along|beside} the $river towards {the next village|$near_city}.
{Until|Before} the {coming of the railway|nineteenth century}, {goods went by packhorse along the valley|produce was carried by barge down the river|goods went by cart along the valley road} to {the coast|$near_city|the nearest port}.

== climate
{Like|As in} the rest of $county, $town has A_ {mild|temperate|damp|changeable} climate, with {cool|warm} summers and winters that are {rarely|seldom} {severe|very cold}.
{Rainfall is highest|Rain is heaviest} {in|during} the {autumn and winter|late autumn}, {when|and} {westerly|south-westerly} {winds|gales} {bring|can bring} {storms|heavy showers} {in from|over from} the {coast|hills}.
{Fog|Mist} {often|sometimes} {lies|gathers|settles} in the {valley|river valley} on {autumn|still} mornings, {while the higher ground stays in sunshine|while the slopes of $hill stay clear}.
Heavy snow is {rare|uncommon} on the valley floor, but $hill is {sometimes|occasionally} white for {a few days|a week or more} in {January|February|a hard winter}.

== present
{Today|At present} $town has A_ {primary school|secondary school|primary school and a secondary school}, A_ {health centre|doctor's surgery}, {a library|a fire station} and {several|a number of} {churches|places of worship}.
{The town council|The parish council} {meets|holds its meetings} {in|at} the {town hall|community centre} and {looks after|is responsible for} {the market|the allotments|footpaths and open spaces}.
The population has {grown slowly|risen steadily} {since the 1990s|over the last few decades}, with {many|a good number of} {newcomers|younger families} {moving|coming} {from|out of} $near_city.
{Visitors|People} {come|return} {for|to enjoy} {the walks|the river|the market|the $festival}, and the town {keeps|has kept} {much of|a great deal of} the {character|charm} it had {a century ago|before the war}.
{Plans|Proposals} for {new housing|more houses|a larger supermarket} on the {edge of town|fields by the river} have {been the subject of some debate|caused some argument} in the town {in recent years|lately}.
The town has {football and cricket clubs|a bowls club and a rowing club|cricket, tennis and angling clubs}, {several|most} of which {use|play at} the {recreation ground|playing fields} {beside|near} the $river.
""")

PLAN = [
    ("Overview", "overview", (3, 4)),
    ("Geography", "geography", (4, 6)),
    ("Early history", "history_early", (5, 7)),
    ("Growth of the town", "history_mid", (5, 7)),
    ("Modern times", "history_modern", (5, 7)),
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
    year_charter = rng.randint(1200, 1320)
    founder_first, founder_last, _ = person(rng, "m")
    (trade1, works1), (trade2, _works2) = rng.sample(TRADES, 2)
    festival, festival_month = rng.choice(FESTIVALS)
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
        "year_charter": str(year_charter),
        "century_charter": century(year_charter),
        "year_mill": str(rng.randint(1770, 1840)),
        "year_fire": str(rng.randint(1640, 1750)),
        "year_railway": str(rng.randint(1846, 1885)),
        "rail_closed": rng.choice(["1960s", "early 1960s", "late 1950s"]),
        "year_school": str(rng.randint(1820, 1880)),
        "year_bypass": str(rng.randint(1968, 1998)),
        "trade1": trade1,
        "works1": works1,
        "works_closed": rng.choice(["1950s", "1960s", "1970s", "1980s"]),
        "works_now": rng.choice(["flats", "small businesses", "studios and workshops", "a heritage centre"]),
        "trade2": trade2,
        "crop": rng.choice(V["crop"]),
        "fruit": rng.choice(V["fruit"]),
        "rock": rng.choice(V["rock"]),
        "stone": rng.choice(V["stone"]),
        "saint": rng.choice(V["saint"]),
        "festival": festival,
        "festival_month": festival_month,
        "pop": thousands(rng.randint(9, 140) * 100),
        "miles": str(rng.randint(4, 22)),
        "elevation": str(rng.randint(12, 55) * 10),
        "street": (streets := rng.sample(V["street"], 2))[0],
        "street2": streets[1],
        "landmark_building": rng.choice(V["building"]),
        "landmark_use": rng.choice(["a small museum", "community rooms", "a café and a gallery",
                                     "the offices of the town council"]),
    }


def document(rng: random.Random) -> tuple[str, list[str]]:
    """Title and paragraphs of one place article."""
    fill = Filler(rng, facts(rng), V, tidy_en)
    paragraphs: list[str] = []
    lead = fill.one(BANKS["lead"])
    for _heading, bank, (lo, hi) in PLAN:
        if bank in ("transport", "climate") and rng.random() < 0.35:
            continue
        # One paragraph per bank: banks are in time order, and a second paragraph from the same bank would
        # hold what the first left over, out of order.
        sentences = fill.pick(BANKS[bank], rng.randint(lo, hi))
        if bank == "overview":
            sentences.insert(0, lead)
        if sentences:
            paragraphs.append(" ".join(sentences))
    return fill.facts["town"], paragraphs
