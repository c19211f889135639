"""First-person travel writing through (invented) regions abroad."""

from __future__ import annotations

import random

from corpus_gen.en_vocab import V, abroad_name
from corpus_gen.engine import Filler, parse_bank, parse_banks, tidy_en, with_article

HOSTS = parse_bank("""
Anton
Marek
Lina
Sofia
Ilya
Teodor
Vesna
Nikos
Elena
Jana
Pavel
Ana
Luka
Milena
Oskar
Ivo
Rosa
Stefan
Dora
Emil
Katya
Bruno
Lucia
Matej
""")

BANKS = parse_banks("""
== opening
I {went to|first saw} the $region in $month, {at a time of year when the crowds have gone home|in the quiet weeks of the year}, and {the roads belonged to the people who live there|the towns seemed to belong to their own people again}.
{For years|For a long time|Ever since I was a student} I had {wanted to walk through|meant to travel through} the $region, {a place I knew only from an old atlas|a country of hills and rivers I knew only from a few photographs|a region I knew only from a friend's letters}.
{The plan|My plan}, {such as it was|if it deserved the name}, was to follow the valley of the $river from $t1 to $t_last, {travelling by bus and on foot|moving by slow trains and on foot|using whatever transport presented itself}, and to stop {wherever something held my attention|whenever a place caught my eye}.
I set out with {a small bag|a rucksack}, {a notebook|two notebooks}, {a map that turned out to be wrong in several places|a borrowed guidebook twenty years out of date}, and {a vague conviction|the cheerful belief} that the rest would {sort itself out|become clear on the way}.
{I had been warned|Friends had warned me} that {the buses were unreliable and the roads bad|the inns would be closed and the buses few}, and {all of this turned out to be true|most of this proved correct}, {though none of it mattered as much as I had feared|but none of it spoiled the journey}.

== companion
$companion came with me {for the whole journey|all the way}, which {was fortunate|proved lucky}, because $cp {spoke enough of the language to order meals|could read the bus timetables|understood enough of the language to ask directions}.

== arrive
We {reached|came into} $stop {late in the afternoon, when the light lay low across the roofs|just after noon, as the shops were closing for the afternoon|in the middle of the morning, while the streets were still wet from a shower|at dusk, as the first lamps came on}.
$stop turned out to be {a small town of steep streets|a compact town of narrow lanes|a sleepy town of cobbled streets} {climbing up from the $river|winding down towards the $river}, its houses {painted in ochre and pale blue|washed in cream and faded pink}, {with green shutters|with brown shutters}.
Arriving in $stop {felt a little like stepping into|was rather like walking into} {a room where a conversation had just paused|an old photograph|somebody else's Sunday}, but {within an hour|by evening} {we had been given directions by several strangers|half a dozen people had offered us advice}.
{The guidebook|My guidebook} {described $stop as unremarkable|gave $stop a single dull sentence|did not mention $stop at all}, {which|and this} {was the first of many reasons to distrust it|turned out to be a recommendation}.
The {road|bus} into $stop {crossed the $river on an old stone bridge|ran along an avenue of plane trees}, and {the first thing we saw|what we noticed first} was {a church tower with a stork's nest on top|a row of washing strung between two balconies|an old man selling melons from the back of a van}.
There was only one place to stay in $stop, {a tall narrow house on the main street with six rooms and a single bathroom|an old inn beside the bridge whose dining room doubled as the owner's sitting room}.
{Nobody in $stop|No one at the bus stop in $stop} seemed surprised to see us, and {a boy on a bicycle|a woman with a shopping basket} {led us through the lanes|showed us the way} to {the house where we were to stay|our lodgings} {without being asked|without a word}.
{The square|The main street} of $stop {was lined with|was shaded by} {lime trees|acacias|old plane trees}, and under them {men were playing cards|children were chasing a football|a few stalls were selling fruit} as if the afternoon would never end.

== arrive_more
{The bus|Our bus} set us down {beside a dusty square|near a quiet square|in a crowded square} with {a fountain|a plane tree|a war memorial} and {a café|two cafés}, where {a few old men|several men} sat over {coffee|small glasses} and watched the newcomers with {mild interest|polite curiosity}.
Our room was {above a bakery|behind a bar|at the back of a tailor's workshop}, reached by {an outside staircase|a dark passage|a courtyard full of geraniums}, and from the window we could {see the river|hear the bells|look down on the market square}.
The streets {were almost empty|seemed half asleep} {in the heat|in the wind off the hills}, and {the only shop open|the one shop that was open} sold {everything from nails to postcards|bread, newspapers and fishing hooks}.

== host
Our $host_role, $host, was waiting by the door {with a key|holding a ledger|with a plate of biscuits}, and explained, {slowly and with many gestures|patiently|in a mixture of languages}, {where we could find breakfast|where to leave our boots|what time the door was locked at night}.
The house belonged to $host, {a cheerful $host_noun of about sixty|a tall, quiet $host_noun} who {had lived in $stop all $hpos life|had once worked in the city and come home}, and who {showed us our room with great ceremony|insisted on carrying our bags up the stairs}.
$host, who {ran the place|kept the house}, {met us in the courtyard|came out to meet us}, {wiping $hpos hands on an apron|with a cigarette in one hand}, and {asked where we had come from|wanted to know all about our journey}.
We {lodged|stayed} with $host, {whose house stood at the top of the town|whose rooms looked out over the river}, and who {spoke a little English and had a great deal of patience|had a few words of English and was not afraid to use them}.
$host, {our $host_role|who let rooms above the post office}, was {a former schoolteacher|a retired bus driver} {with a great many relatives in the town, and we were introduced to most of them before supper|with firm views on everything, including the proper way to cross the mountains}.
The room was let to us by $host, {an elderly $host_noun|a young $host_noun} who {apologised for the cold water|apologised for the noise from the bar below}, and {refused to take any money in advance|brought us a bowl of plums as a welcome}.

== meal_open
{Supper|Dinner} that evening was @food and @food {at a small restaurant|in a crowded tavern|in a family kitchen} where {there was no menu|the menu was chalked on a board|the owner simply brought whatever had been cooked}, followed by {a glass of @glass_drink|a cup of @cup_drink}.
We ate that night in {a small restaurant by the bridge|the back room of a bar}, where {@food and @food came to the table without anyone ordering them|the owner's daughter recited the dishes of the day from memory}.
{Lunch|Our midday meal} was {@food and bread|a plate of @food} {in the shade of a vine|at a table on the pavement}, {and we took our time over it|with the whole street for company}.

== meal
We ate @food with {bread still warm from the oven|@food}, and {listened to|watched} the {family|party} at the next table {argue cheerfully|talk loudly|debate at length} about {football|the harvest|a wedding|the price of diesel}.
The food of the $region is {plain and good|simple and generous|plain and honest}: @food, @food and, to finish, {a small cup of @cup_drink|a glass of @glass_drink} {that the owner would not let us pay for|which the cook insisted we try}.
The meal {lasted|took} {two|nearly three} hours, since {nobody seemed to be in any hurry|no one expected us to leave}, and we stayed {until the lamps came on|long after the stars were out}.
{In the kitchen an old woman was rolling out pastry, and she waved us in to watch|Behind the counter a boy of about twelve was shelling beans into a bucket, and he grinned at us without stopping|In the kitchen the owner's mother was stirring a pot the size of a bucket, and we were invited to look}.
Breakfast {the next morning|on the last day} was {bread, honey and @cup_drink|yoghurt, figs and @cup_drink}, {taken on a balcony above the street|eaten at a long table in the courtyard}, while $host {sat with us|kept our cups full} and {talked about the weather|asked about our plans}.

== market_open
{The next morning|On market day} the {square|main street} filled with {stalls|trestle tables|carts} piled with {fruit|cheeses|honey|vegetables}, {baskets|rope|knives|cheap shoes} and {bundles of herbs|sacks of grain|live chickens}.
{Saturday|Thursday} was market day in $stop, and {from first light|long before we were up} {carts and vans|farmers with loaded mules} {came in|arrived} from {the villages around|the hills}.
We happened to arrive in time for the {monthly|weekly} market, when {the whole of the main street|every corner of the square} {was taken up by stalls|was covered with baskets and crates}.

== market
I bought {a round of cheese|a jar of honey} from {an old woman|a young woman} who {insisted on telling me exactly which valley it came from|wanted me to know the name of her village}.
The market seemed to exist {as much for conversation as for trade|as much for gossip as for buying and selling}, so {business was slow|every sale took a long time}, and {nobody minded|no one complained}.
By {noon|midday} the traders had packed up, the square had been {swept|hosed down}, and it was {as if there had been no market at all|hard to believe anything had happened there}.
{Near the church|At the end of the row} {a man was sharpening knives on a treadle wheel, and a small crowd had gathered to watch|a boy was selling lemons from a wheelbarrow and keeping up a steady patter|two women were selling lace, and haggling cheerfully with every customer}.
{A stall of old tools|A table of second-hand books} {caught my eye|held me for half an hour}, and I came away with {a pocket knife|a dictionary with half its pages missing} {that I still use|for the price of a coffee}.

== walk_open
{One morning|On our second day} the path out of $stop {took us up through terraces of olives|took us through chestnut woods|led us between vineyards} towards {a pass|a ridge|a saddle} below the $range, where the {wind|air} {turned suddenly cool|was colder}.
{On our second day|One morning} we {left our bags with $host|set out early} and walked {up into the hills above $stop|along the river below $stop}, {with a map that $host had drawn for us|following a line of old boundary stones}.
A {track|footpath} {behind the church|from the top of the town} led {up through the woods|along the ridge above $stop}, and we followed it {for most of a day|until the light began to go}.

== walk
For {two|three|several} hours we met {no one|nobody} but {a shepherd, who raised his stick in greeting but did not stop|a man cutting wood, who raised a hand in greeting and said nothing|an old woman with a goat, who nodded to us and went on her way}.
From the {top|crest} the view opened over the whole valley of the $river: {villages scattered along the slopes|farms strewn across the hillsides}, {a road threading between them|the railway winding along the valley floor}, and {far off the snow of the $range|in the distance the blue outline of the $range}.
The path dropped {steeply|sharply} through {scrub and boulders|old terraces|@trees}, and the only sounds were our boots on {loose stones|the gravel} and, {somewhere far below|further down}, {running water|a dog barking|church bells}.
{Once|At midday} we sat down {under A_ @tree|beside a ruined chapel|against a stone wall} to eat {bread and cheese|apples|what was left of the bread}, watching {the shadows of clouds slide across the valley|clouds drift over the hills}.
{The maps|Our maps} {showed a path that no longer existed|disagreed about the route}, and {we asked the way at a farm, losing an hour but gaining a conversation|we followed the cairns instead, which cost us an hour}.
{Below the village|Beyond the last houses} {an old mule track|a paved path} ran {between walls of dry stone|beside an irrigation channel}, and {lizards|small green lizards} {darted|flicked} {into the cracks|out of sight} {as we passed|at every step}.
{By late afternoon|Towards evening} {our legs were tired|the heat had gone out of the day}, and {we were glad to see the roofs of $stop below us again|the first lights of $stop appeared in the valley}.

== talk_open
{That evening|After supper} we sat {with $host|in $host's kitchen} {until late|over a bottle of @glass_drink}, and {the talk turned to|$host wanted to talk about} {the old days|the changes in the valley}.
$host {had opinions about everything|was a great talker}, and {that evening|on our last night} $hp {held forth|talked for hours} {on the state of the roads|about the valley and its people}.
We asked $host whether the valley had changed much {since $hpos childhood|in the last thirty years}, and {the answer took most of the evening|the reply was a long one}.

== talk
"{You have come at the right time," $host said, pouring another glass. "In August the road is full of cars from the city|You should have come in spring," $host said, filling our cups again. "Then the hills are covered in flowers|Nobody comes here at this time of year," $host said, pouring another glass. "Only the postman and my cousins}."
"{The young people go to the city," $host said with a shrug. "But they come back for the festivals|Everyone leaves for the coast," $host said, without complaint. "Still, a few return for the harvest|The old trades have gone," $host said with a smile. "But the houses are not empty yet}."
$host told us about {the flood|the hard winter|the great snow} of $hpos {youth|childhood}, when {the road|the bridge|the pass} was closed for {weeks|a month} and {the village|everyone} lived on {dried beans|stored food} and {patience|each other's company}.
{Nobody|No one} in the {bar|café} spoke more than a few words of English, but {with gestures|with a dictionary|with drawings on a napkin} we managed to {talk about the weather|discuss football|discuss the road ahead} for {an hour|most of the evening}.
"{Where are you going next|And after this, where}?" $host asked, and when we told $hobj, $hp {laughed|shook $hpos head} and {said that the road to $next was the worst in the country|drew us a better route on the back of a receipt}.
Later $host brought out {a photograph album|an old map of the valley}, and {showed us|pointed out} {the house where $hp was born|the farms that had been abandoned since the war}, {naming each one|with a story for every one}.

== night_open
That night I walked beside the river while {swallows|swifts|bats} {hunted over|flew low above} the water and the scent of {jasmine|wood smoke|lime blossom} drifted from the {houses|gardens}.
At night the streets were {empty|silent} except for {a cat|an old man walking slowly|a couple arm in arm}, and a few street lamps threw {pools|circles} of {yellow|pale} light on the {cobbles|walls}.
{Late in the evening|Towards midnight} {a brass band started to play in the square|someone with an accordion began to play under our window|a group of students began singing in the square}, {and nobody seemed to mind|and the town seemed to approve}.

== night
I {slept badly, kept awake by|lay awake for a long time, listening to} {@sound|dogs answering one another across the valley|a radio somewhere below}, and woke before dawn to {the sound of shutters|a cockerel|church bells}.
{The bells of the church|A clock somewhere in the town} struck {eleven|midnight} {as we walked back|while we sat on the step}, and {the last café was stacking its chairs one table at a time|the bar on the corner put out its lights with a great deal of noise}.
{Before bed|Late that night} we sat {on the balcony|on the wall above the river} {with the last of the wine|with a bag of cherries}, {watching the lights go out one by one|talking about nothing much}, while {frogs called from the river|somewhere a dog barked}.

== onward
{The next morning|After two days|After three nights} we took the early bus from $stop towards $next, and $host stood in the doorway waving until the bus was out of sight. The road {kept close to|followed} the $river for {most of the day|many miles}, past {villages that seemed half empty|hamlets that looked asleep}, with {barns painted with faded advertisements|walls covered with old slogans}.
We reached the bus station in $stop with minutes to spare, only to learn that the bus to $next {had been cancelled|would not run until the next day}. {In the end|After an hour} a lorry driver {offered us a lift|stopped and offered to take us}, and we {sat in the cab with our knees against the dashboard|rode among sacks of flour in the back} while he {sang along to the radio|pointed out every village on the way}.
We decided to walk to $next, {a day's march along the old road|following a path the map marked as a road}, and $host {packed us bread and cheese for the way|gave us a letter for a cousin who kept a café there}. {The path out of $stop climbed through terraces of olives|The track wound through chestnut woods} {and then dropped|before dropping} {towards the $river|into the next valley}, and we {met no one all day|saw no one but a shepherd and his dogs}.
{After two days|After three nights} we left $stop for $next on a train of two carriages, which {stopped at every halt|waited patiently at every station} {while the guard talked to the station master|as if it had all the time in the world}. The journey took most of the day, and {we arrived stiff and hungry|it left us more tired than if we had walked}.
The bus to $next {left|went} at six, and $host {was up before us|got up to see us off}, {with coffee already on the stove|with a bag of bread for the journey}. {For three hours|All morning} the bus {climbed and descended|wound along} {hairpin bends above the $river|the side of the valley}, {stopping for anyone who waved|with the driver greeting everyone he passed}.

== closing
Looking back, {it is not the monuments I remember but the small things|what I remember is less the sights than the ordinary moments}: {a plate of @food|a conversation with $host|the view from a ridge above the $river|the sound of rain on a tin roof in $t2}.
{Such country|This part of the world} is {no place for travellers in a hurry|not for people who want to tick off sights}, but {to anyone prepared to walk and wait|for those willing to slow down} it {offers far more than it seems to at first|gives much more than the map suggests}.
I have {promised myself|meant} to go back, {perhaps in spring|probably in another year}, to see whether {the café|the bakery} in $t1 is still there, and whether $host would remember {us|the two strangers who arrived at dusk}.
Travelling {like this|slowly and without much of a plan} {reminds one of something that is easily forgotten at home|teaches a thing that ordinary life makes us forget}: that most of life is quiet, and that ordinary life, {looked at closely|seen with attention}, is {rarely|seldom} dull.
""")


HOSTS_F = {"Lina", "Sofia", "Vesna", "Elena", "Jana", "Ana", "Milena", "Rosa", "Dora", "Katya", "Lucia"}


def _set_host(fill: Filler, rng: random.Random) -> None:
    host = rng.choice([h for h in HOSTS if h != fill.facts.get("host")])
    female = host in HOSTS_F
    fill.facts["host"] = host
    fill.facts["hp"] = "she" if female else "he"
    fill.facts["hpos"] = "her" if female else "his"
    fill.facts["hobj"] = "her" if female else "him"
    fill.facts["host_noun"] = "woman" if female else "man"
    fill.facts["host_role"] = rng.choice(["landlady", "hostess"] if female else ["landlord", "host"])


def document(rng: random.Random) -> tuple[str, list[str]]:
    n_stops = rng.randint(3, 5)
    names: list[str] = []  # towns, then the region, the river and the range: all different
    while len(names) < n_stops + 3:
        name = abroad_name(rng)
        if name not in names:
            names.append(name)
    towns, (region, river, range_name) = names[:n_stops], names[n_stops:]
    facts = {
        "region": rng.choice([f"{region} hills", f"{region} valleys", f"upper {region}", f"{region} highlands",
                              f"{region} coast", f"lake country of {region}"]),
        "river": river,
        "range": f"{range_name} {rng.choice(['mountains', 'range', 'massif', 'heights'])}",
        # Travellers who want quiet roads go out of season.
        "month": rng.choice(["March", "April", "May", "September", "October", "November"]),
        "t1": towns[0],
        "t2": towns[1],
        "t_last": towns[-1],
    }
    companion_sex = rng.choice("mf")
    facts["companion"] = rng.choice(V["first_m"] if companion_sex == "m" else V["first_f"])
    facts["cp"] = "he" if companion_sex == "m" else "she"
    fill = Filler(rng, facts, V, tidy_en)
    opening = fill.pick(BANKS["opening"], rng.randint(2, 3))
    opening.insert(min(2, len(opening)), fill.one(BANKS["companion"]))
    paragraphs = [" ".join(opening)]
    for i, stop in enumerate(towns):
        fill.facts["stop"] = stop
        fill.facts["next"] = towns[i + 1] if i + 1 < len(towns) else "the coast"  # the way home
        _set_host(fill, rng)
        # Arrival: a sentence that names the town, the host, perhaps one more detail.
        arrival = [fill.one(BANKS["arrive"]), fill.one(BANKS["host"])] + fill.pick(
            BANKS["arrive_more"], rng.randint(0, 1))
        paragraphs.append(" ".join(arrival))
        days = ["meal", "market", "walk", "talk", "night"]
        for bank in sorted(rng.sample(days, rng.randint(1, 2)), key=days.index):  # in the order of a day
            opener = fill.pick(BANKS[f"{bank}_open"], 1)
            if opener:  # each kind of scene starts with a sentence that sets it up
                paragraphs.append(" ".join(opener + fill.pick(BANKS[bank], rng.randint(1, 2))))
        if i + 1 < len(towns):
            paragraphs.append(fill.one(BANKS["onward"]))
    paragraphs.append(fill.paragraph(BANKS["closing"], rng.randint(2, 3)))
    title = rng.choice([
        f"Along the {facts['river']}", f"Slow roads through the {facts['region']}",
        f"{with_article(facts['month'])[0].upper()}{with_article(facts['month'])[1:]} journey in the {facts['region']}",
        f"From {towns[0]} to {towns[-1]}", f"Notes from the {facts['region']}", f"Walking the {facts['range']}",
    ])
    return title, paragraphs
