"""First-person travel writing through (invented) regions abroad."""

from __future__ import annotations

import random

from corpus_gen.en_vocab import V, abroad_name
from corpus_gen.engine import Filler, parse_bank, parse_banks, tidy_en

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
I {went to|first saw} the $region in $month, {at a time of year when the crowds have gone home|before the summer visitors arrive|in the quiet weeks of the year}, and {the roads belonged to the people who live there|the towns seemed to belong to their own people again}.
{For years|For a long time|Ever since I was a student} I had {wanted to walk through|meant to travel through} the $region, {a place I knew only from an old atlas|a country of hills and rivers I knew only from a few photographs|a region I knew only from a friend's letters}.
{The plan|My plan}, {such as it was|if it deserved the name}, was to follow the valley of the $river from $t1 to $t_last, {travelling by bus and on foot|moving by slow trains and on foot|using whatever transport presented itself}, and to stop {wherever something held my attention|whenever a place caught my eye}.
I set out with {a small bag|a rucksack}, {a notebook|two notebooks}, {a map that turned out to be wrong in several places|a borrowed guidebook twenty years out of date}, and {a vague conviction|the cheerful belief} that the rest would {sort itself out|become clear on the way}.
$companion came with me {for the first week|for most of the journey|as far as $t2}, which {was fortunate|proved lucky}, because $cp {spoke enough of the language to order meals|could read the bus timetables|understood enough of the language to ask directions}.
{I had been warned|Friends had warned me} that {the buses were unreliable|the roads were bad|the inns would be closed}, and {all of this turned out to be true|most of this proved correct}, {though none of it mattered as much as I had feared|but none of it spoiled the journey}.

== arrive
We {reached|came into} $stop {late in the afternoon|at dusk|in the middle of the morning|just after noon}, {when the light lay low across the roofs|as the shops were closing for the afternoon|while the streets were still wet from a shower}.
$stop {turned out to be|is} {a small town of steep streets|a compact town of narrow lanes|a sleepy town of cobbled streets} {climbing up from the $river|winding down towards the $river}, its houses {painted in ochre and pale blue|washed in cream and faded pink}, {with green shutters|with brown shutters}.
{The bus|Our bus|The train} set us down {beside a dusty square|near a quiet square|in a crowded square} with {a fountain|a plane tree|a war memorial} and {a café|two cafés}, where {a few old men|several men} sat over {coffee|small glasses} and watched the newcomers with {mild interest|polite curiosity}.
Our room was {above a bakery|behind a bar|at the back of a tailor's workshop}, reached by {an outside staircase|a dark passage|a courtyard full of geraniums}, and from {its|the} window we could {see the river|hear the bells|look down on the market square}.
Arriving in $stop {felt a little like stepping into|was rather like walking into} {a room where a conversation has just paused|an old photograph|somebody else's Sunday}, but {within an hour|by evening} {we had been given directions by several strangers|half a dozen people had offered us advice}.
Our $host_role, $host, was waiting by the door {with a key|holding a ledger|with a plate of biscuits}, and explained, {slowly and with many gestures|patiently|in a mixture of languages}, {where we could find breakfast|where to leave our boots|what time the door was locked at night}.
{The guidebook|My guidebook} {described $stop as unremarkable|gave $stop a single dull sentence|did not mention $stop at all}, {which|and this} {was the first of many reasons to distrust it|turned out to be a recommendation}.

== meal
{Supper|Dinner} that evening was @food and @food {at a small restaurant|in a crowded tavern|in a family kitchen} where {there was no menu|the menu was chalked on a board|the owner simply brought what he had cooked}, followed by @drink.
We ate @food with {bread still warm from the oven|@food}, and {listened to|watched} the {family|party} at the next table {argue cheerfully|talk loudly|debate at length} about {football|the harvest|a wedding|the price of diesel}.
The food of the $region is {plain|simple|generous} and {good|honest}: @food, @food and, to finish, {a small cup of @drink|a glass of @drink} {that the owner would not let us pay for|which the cook insisted we try}.
The meal {lasted|took} {two|nearly three} hours, since {nobody seemed to be in any hurry|no one expected us to leave}, and we stayed {until the lamps came on|long after the stars were out}.
{In the kitchen|Behind the counter} {an old woman|the owner's mother|a boy of about twelve} was {rolling out pastry|shelling beans|stirring a pot the size of a bucket}, {and she waved us in to watch|and we were invited to look}.

== market
{The next morning|On market day} the {square|main street} filled with {stalls|trestle tables|carts} piled with {@crop|cheeses|honey|vegetables}, {baskets|rope|knives|cheap shoes} and {bundles of herbs|sacks of grain|live chickens}.
I bought {dried figs|a bag of walnuts|a round of cheese|a jar of honey} from {a woman|an old farmer|a young woman} who {insisted on telling me exactly which valley it came from|wanted me to know the name of her village}.
The market seemed to exist {as much for conversation as for trade|as much for gossip as for buying and selling}, so {business was slow|every sale took a long time}, and {nobody minded|no one complained}.
By {noon|midday} the traders had packed up, the square had been {swept|hosed down}, and it was {as if there had been no market at all|hard to believe anything had happened there}.
{Near the church|At the end of the row} {a man was sharpening knives on a treadle wheel|two women were selling lace|a boy was selling lemons from a wheelbarrow}, {and a small crowd had gathered to watch|and he kept up a steady patter}.

== walk
{Our|The} path out of $stop {climbed through terraces of olives|wound through chestnut woods|led between vineyards} towards {a pass|a ridge|a saddle} below the $range, where the {wind|air} {turned suddenly cool|was colder}.
For {two|three|several} hours we met {no one|nobody} but {a shepherd|a man cutting wood|an old woman with a goat}, who raised {a hand|his stick} in greeting {and said nothing|but did not stop}.
From the {top|crest} the view opened over the whole valley of the $river: {villages scattered along the slopes|farms strewn across the hillsides}, {a road threading between them|the railway winding along the valley floor}, and {far off the snow of the $range|in the distance the blue outline of the $range}.
The path dropped {steeply|sharply} through {scrub and boulders|old terraces|@trees}, and the only sounds were our boots on {loose stones|the gravel} and, {somewhere far below|further down}, {running water|a dog barking|church bells}.
{Once|At midday} we sat down {under @tree|beside a ruined chapel|against a stone wall} to eat {bread and cheese|apples|what was left of the bread}, watching {the shadows of clouds slide across the valley|clouds drift over the hills}.
{The maps|Our maps} {showed a path that no longer existed|disagreed about the route}, and {we followed the cairns instead|we asked the way at a farm}, {losing an hour but gaining a conversation|which cost us an hour}.

== talk
"{You have come at the right time|You should have come in spring|Nobody comes here in $month}," $host said, {pouring another glass|filling our cups again}. "{In August|At the height of the season} {this road|the town} is {full of cars|crowded with people from the city}."
We asked $host whether the valley had changed much {since $hpos childhood|in the last thirty years}, and {the answer took most of the evening|the reply was a long one}.
"{The young people go to the city|Everyone leaves for the coast|The old trades have gone}," $hp said, {shrugging|without complaint|with a smile}. "{But they come back for the festivals|Still, a few return for the harvest|But the houses are not empty yet}."
$host told us about {the flood|the hard winter|the great snow} of $hpos {youth|childhood}, when {the road|the bridge|the pass} was closed for {weeks|a month} and {the village|everyone} lived on {dried beans|stored food} and {patience|each other's company}.
{Nobody|No one} in the {bar|café} spoke more than a few words of English, but {with gestures|with a dictionary|with drawings on a napkin} we managed to {talk about the weather|discuss football|discuss the road ahead} for {an hour|most of the evening}.
"{Where are you going next|And after this, where}?" $host asked, and when we told $hpos, $hp {laughed|shook $hpos head} and {said that the road to $next was the worst in the country|drew us a better route on the back of a receipt}.

== night
That night I walked beside the river while {swallows|swifts|bats} {hunted over|flew low above} the water and the scent of {@smell|jasmine} drifted from the {houses|gardens}.
I {slept badly|lay awake for a long time}, {listening to|kept awake by} {@sound|dogs answering one another across the valley|a radio somewhere below}, and woke before dawn to {the sound of shutters|a cockerel|church bells}.
At night the streets were {empty|silent} except for {a cat|an old man walking slowly|a couple arm in arm}, and a few street lamps threw {pools|circles} of {yellow|pale} light on the {cobbles|walls}.
{Late in the evening|Towards midnight} {a brass band|someone with an accordion|a group of students} {started to play in the square|began singing under our window}, {and nobody seemed to mind|and the town seemed to approve}.

== onward
{The next morning|After two days|After three nights} we {left $stop for $next|took the early bus from $stop towards $next}, and $host stood in the doorway {until we turned the corner|waving until the bus was out of sight}.
The road to $next {kept close to the $river|followed the $river} for {most of the day|many miles}, past {villages that seemed half empty|hamlets that looked asleep}, with {barns painted with faded advertisements|walls covered with old slogans}.
We reached the bus station {in time|with minutes to spare}, only to learn that the {bus|train} to $next {had been cancelled|would leave three hours late}, so we spent {the morning|the afternoon} on a bench {watching the square come and go|watching the town go about its business}.

== closing
Looking back, {it is not the monuments I remember but the small things|what I remember is less the sights than the ordinary moments}: {a plate of @food|a conversation with $host|the view from a ridge above the $river|the sound of rain on a tin roof in $t2}.
The $region is {no place for travellers in a hurry|not a region for people who want to tick off sights}, but {to anyone prepared to walk and wait|for those willing to slow down} it {offers far more than it seems to at first|gives much more than the map suggests}.
I have {promised myself|meant} to go back, {perhaps in spring|probably in another year}, to see whether {the café in $t1|the bakery in $t1} is still there, and whether $host would remember {us|the two strangers who arrived at dusk}.
Travelling {like this|slowly and without much of a plan} {reminds one of something that is easily forgotten at home|teaches a thing that ordinary life makes us forget}: that most of life is {ordinary|quiet}, and that ordinary life, {looked at closely|seen with attention}, is {rarely|seldom} dull.
""")


HOSTS_F = {"Lina", "Sofia", "Vesna", "Elena", "Jana", "Ana", "Milena", "Rosa", "Dora", "Katya", "Lucia"}


def _set_host(fill: Filler, rng: random.Random) -> None:
    host = rng.choice(HOSTS)
    fill.facts["host"] = host
    fill.facts["hp"] = "she" if host in HOSTS_F else "he"
    fill.facts["hpos"] = "her" if host in HOSTS_F else "his"
    fill.facts["host_role"] = rng.choice(["landlady", "hostess"] if host in HOSTS_F else ["landlord", "host"])


def document(rng: random.Random) -> tuple[str, list[str]]:
    n_stops = rng.randint(3, 5)
    towns = [abroad_name(rng) for _ in range(n_stops)]
    region = abroad_name(rng)
    facts = {
        "region": rng.choice([f"{region} hills", f"{region} valleys", f"upper {region}", f"{region} highlands",
                              f"{region} coast", f"lake country of {region}"]),
        "river": abroad_name(rng),
        "range": f"{abroad_name(rng)} {rng.choice(['mountains', 'range', 'massif', 'heights'])}",
        "month": rng.choice(V["month"]),
        "t1": towns[0],
        "t2": towns[1],
        "t_last": towns[-1],
    }
    companion_sex = rng.choice("mf")
    facts["companion"] = rng.choice(V["first_m"] if companion_sex == "m" else V["first_f"])
    facts["cp"] = "he" if companion_sex == "m" else "she"
    fill = Filler(rng, facts, V, tidy_en)
    _set_host(fill, rng)
    paragraphs = [" ".join(fill.pick(BANKS["opening"], rng.randint(3, 4)))]
    for i, stop in enumerate(towns):
        fill.facts["stop"] = stop
        fill.facts["next"] = towns[i + 1] if i + 1 < len(towns) else facts["t1"]
        _set_host(fill, rng)
        paragraphs.append(" ".join(fill.pick(BANKS["arrive"], rng.randint(3, 4))))
        for bank in rng.sample(["meal", "market", "walk", "talk", "night"], rng.randint(1, 2)):
            paragraphs.append(" ".join(fill.pick(BANKS[bank], rng.randint(2, 3))))
        if i + 1 < len(towns):
            paragraphs.append(" ".join([fill.one(BANKS["onward"])] + fill.pick(BANKS["walk"] + BANKS["night"], 2)))
    paragraphs.append(" ".join(fill.pick(BANKS["closing"], rng.randint(2, 3))))
    title = rng.choice([
        f"Along the {facts['river']}", f"Slow roads through the {facts['region']}",
        f"A {facts['month']} journey in the {facts['region']}", f"From {towns[0]} to {towns[-1]}",
        f"Notes from the {facts['region']}", f"Walking the {facts['range']}",
    ])
    return title, paragraphs
