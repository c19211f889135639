"""Web-style documents: local news reports, how-to guides, reviews and forum threads.

The MM-NIAH haystack is OBELICS web text, so the default corpus needs more than essays and town histories:
these kinds bring the registers of the web (reported speech, second-person instructions, opinion with
ratings, chatty replies with user names) and its structure. A block starting with ``## `` is a section heading
and one starting with ``- `` is a list item; ``engine.structure`` turns them into the document's headings and
paragraph kinds. Each kind draws its facts (names, sums, dates, products) per document, so the same frame
reads differently every time, and its banks are large enough that two documents of one kind share few frames.
"""

from __future__ import annotations

import datetime
import random

from corpus_gen.en_vocab import V, person, place_name, pronouns, river_name
from corpus_gen.engine import _PENDING, Filler, parse_banks, tidy_en, with_article

_HANDLE_A = ("quiet", "old", "late", "north", "river", "slow", "tall", "blue", "grey", "wild", "copper", "salt",
             "little", "rusty", "second", "lucky", "muddy", "frosty", "windy", "odd", "plain", "half")
_HANDLE_B = ("fox", "kettle", "spanner", "heron", "boots", "gardener", "pilot", "baker", "ferry", "badger",
             "moth", "lamp", "thimble", "tractor", "pebble", "oak", "cyclist", "potter", "otter", "crow",
             "tinker", "wren", "mariner", "owl")


def handle(rng: random.Random) -> str:
    # Letters and digits only: dots and underscores read to the sentence checks as broken punctuation.
    style = rng.randrange(3)
    a, b = rng.choice(_HANDLE_A), rng.choice(_HANDLE_B)
    if style == 0:
        return f"{a.capitalize()}{b.capitalize()}"
    if style == 1:
        return f"{a.capitalize()}{b.capitalize()}{rng.randint(2, 99)}"
    return f"{b.capitalize()}{rng.choice(('man', 'woman', 'fan', 'head', 'wright'))}{rng.randint(70, 99)}"


def _money(rng: random.Random, lo: int, hi: int, step: int = 1) -> str:
    return f"£{rng.randrange(lo, hi, step):,}"


# ---------------------------------------------------------------------------------------------------- news

NEWS_STORIES = [
    # subject, what happened (past), noun phrase, the body responsible, a thing people argue about
    ("footbridge", "the footbridge over the $river reopened", "the reopened footbridge", "the county council",
     "the cost of the repairs"),
    ("library", "the branch library moved into the old corn exchange", "the new library", "the library service",
     "the shorter opening hours"),
    ("bus", "the number $busno bus route was cut back to three journeys a day", "the reduced bus service",
     "the bus operator", "the loss of the evening journeys"),
    ("market", "the Saturday market returned to $street after two years away", "the revived market",
     "the town council", "the parking on market days"),
    ("flood", "the $river burst its banks after two days of heavy rain", "the flooding",
     "the Environment Agency", "the state of the flood defences"),
    ("school", "plans to merge the two primary schools were approved", "the school merger",
     "the education authority", "the longer journey for younger pupils"),
    ("pool", "the open-air swimming pool reopened after a volunteer campaign", "the restored pool",
     "the pool trust", "the price of a season ticket"),
    ("housing", "outline permission was granted for $houses homes on the edge of $town",
     "the housing scheme", "the planning committee", "the extra traffic on the lane"),
    ("cafe", "a community café opened in the former railway waiting room", "the station café",
     "the rail company", "the rent the volunteers will pay"),
    ("festival", "the first food and music weekend drew crowds to the park", "the weekend festival",
     "the events committee", "the noise late in the evening"),
    ("wind", "a storm brought down trees and cut power to $houses homes", "the storm damage",
     "the electricity network", "the time it took to restore power"),
    ("museum", "the town museum reopened with a new gallery of local photographs", "the refurbished museum",
     "the museum trustees", "the new admission charge"),
]

NEWS = parse_banks("""
== lede
{Residents of $town|People in $town} {woke on $weekday to find that|learned on $weekday that} $event, {ending months of uncertainty|after a long wait|earlier than many had expected}.
$event on $weekday, {the culmination of|after} {a campaign that began in $startyear|nearly two years of meetings and letters|a long dispute between residents and $body}.
{It was confirmed this week that|News broke on $weekday that} $event, {a decision welcomed by some and criticised by others|and reactions in $town have been mixed}.
{After a turbulent few months|Following a long spell of delays}, $event {on $weekday|this week}, {and the mood in $town is cautiously upbeat|to the relief of shopkeepers on $street}.

== detail
{According to|Figures released by} $body, {the work|the project} {cost|came to} {$cost|roughly $cost}, {about $overrun more than first estimated|slightly under the original budget}.
{The decision was taken|The vote was held} at a meeting on $prevday, {where councillors voted $votes|where the motion passed by $votes} after {a debate lasting almost two hours|a short but heated debate}.
{A report prepared for the meeting|Papers published before the meeting} {estimated that|suggested that} {$share per cent of households|around $share in every hundred homes} {would be affected|would notice a difference} {within the first year|over the next two years}.
{Work is expected to|Contractors hope to} {finish|be completed} by $month, {weather permitting|although {that date has slipped once already|nobody is promising anything}}.
{The scheme|The plan} {was first proposed|first surfaced} in $startyear, {when|at a time when} {the $building on $street stood empty|money for such projects was easier to find}.
{Under the terms agreed|As part of the agreement}, $body {will cover|has promised to pay} {most of the running costs|the cost of maintenance} for {the next five years|at least a decade}, {after which the arrangement will be reviewed|with a review in $reviewyear}.
{Signs|Notices} {went up on $street|were posted around $town} {on $prevday|at the weekend}, {explaining the changes|giving details of what happens next}, and {a leaflet will go to every household|an open session is planned at the parish hall}.

A firm based in $town2 {won the contract|was appointed} in $month, {beating|ahead of} {three other bidders|two larger companies}, and {has promised|says it expects} to {employ local labour where possible|keep disruption to a minimum}.
{Half the cost|Around half the money} {comes from|is being met by} {a national grant|the lottery}, {with|and} the rest {split between|shared by} $body and {the town council|local fundraising}, {which has already brought in|which has so far raised} $overrun.
{Traffic on $street|Deliveries to the shops on $street} {will be restricted|will face restrictions} {between nine and four|on weekdays} {until the work is done|for about six weeks}, {a point several traders raised at the meeting|which has worried some businesses}.
{Only|Just} $share {people|residents} {responded to|took part in} {the consultation last spring|last year's survey}, {a figure critics say is far too low|which opponents argue proves nobody was told}.
{Officers told councillors|A report to the committee said} that {the old arrangements|the existing set-up} {had become|was} "{unsustainable|no longer fit for purpose}" {and that|because} {repair bills had doubled in five years|nothing had been spent on it since $oldyear}.
{Police|Highways officers} {were called|attended} {twice|on several occasions} {during the works|in the first week}, {mostly because of|largely over} {parking on the verges|complaints about noise early in the morning}.
{An independent survey|A structural survey} {carried out in $startyear|commissioned by the council} {found|concluded} that {the site could be used|the work could go ahead} {provided|as long as} {drainage was improved|the old foundations were left in place}.
{Two public meetings|A series of drop-in sessions} {held over the winter|held in the parish hall} {drew|attracted} {more than a hundred people|large crowds} {each time|on each occasion}, {and|and} {the questions were often pointed|feelings sometimes ran high}.

== quote
"{We have waited a long time for this|This has been a long time coming}," said $official, {who chairs|the chair of} {the residents' association|the local action group}. "{It shows what people can do when they pull together|I am proud of everyone who wrote a letter or came to a meeting}."
$official, {one of the ward councillors for $town|who represents $town on the county council}, {told the paper|said on $weekday} that {the outcome was|it had been} "{the best we could hope for|a fair compromise}" {given the money available|in difficult circumstances}.
"{I have lived here for $residentyears years|I grew up on $street}, and I have never seen {anything like it|so many people turn out}," said $resident, {$resident_age|a retired $job}. "{It feels like the town has got something back|My grandchildren will be able to enjoy it too}."
{Not everyone is pleased|The response has not been universally warm}. "{Nobody asked us|We were told, not consulted}," said $critic, who {runs a shop on $street|lives near the site}. "{I worry about $worry|My concern is $worry}, and {I have yet to hear a good answer|nobody has explained how that will be handled}."
{A spokesperson for $body|A statement from $body} {said|read}: "{We recognise the concerns raised|We have listened carefully to residents} and {will keep the arrangements under review|remain committed to working with the community}."
"{Honestly, I did not think it would happen|It is a small thing, but it matters}," {said|admitted} $resident, {standing outside the post office|speaking at the bus stop on $street}. "{We will see how it goes|Let us hope they get the details right}."

== quote2
"{People have strong feelings about this|This town does not like change}, {and I understand that|and that is not always a bad thing}," said $official. "{But|Still,} {doing nothing was not an option|the figures simply did not add up}."
{Speaking outside the meeting|Asked about the delays}, $official {admitted|conceded} that {mistakes had been made|communication could have been better}. "{We should have explained it sooner|Residents deserved more notice}," {$official_he said|$official_he added}.
"{My husband and I|My family} {have used it every week for years|rely on it more than people realise}," said $resident. "{If it had gone, I do not know what we would have done|Losing it would have been the last straw}."
$critic {remains unconvinced|is not persuaded}. "{Ask me again in a year|Come back in twelve months}," {$critic_he said|$critic_he told us}. "{I have heard promises like this before|Plenty of things look good on paper}."

== background
{$town, which has a population of about $population,|With around $population residents, $town} {has seen several shops close in recent years|has lost its bank and one of its two pubs since $closeyear}, {and many hope the news marks a turning point|which has made residents wary of further change}.
{This is not the first time|It is not the first occasion} {$topic has made the news|the town has been in the headlines}: in $oldyear, {a similar plan was dropped after a public inquiry|a petition signed by $signatures people forced a rethink}.
{Local historians|Older residents} {point out that|recall that} {the site was once|before the war the site held} {a brickworks|a cattle market|the town's gasworks}, {and parts of the old walls can still be seen|which is why the ground took so long to clear}.
{Elsewhere in the district|Across the wider area}, {similar schemes|comparable projects} {have had mixed results|have met with varying success}, {with|and} {one in neighbouring $town2 closing within eighteen months|the one in $town2 often held up as a model}.

{Shops on $street|Traders in the centre} {have had a difficult decade|have struggled since the bypass opened in $closeyear}, {and|and} {footfall figures|surveys of shoppers} {collected by the chamber of trade|kept by the council} {show a slow decline|have fallen most years}.
{Neighbouring $town2|The larger town of $town2} {went through a similar argument|faced the same choice} {in $oldyear|a few years earlier}, {and|and} {the outcome there|how it turned out} {is still debated in the letters pages|is often quoted by both sides}.

== next
{A public meeting|A drop-in session} {will be held|is planned} at {the parish hall|the community centre on $street} on {$nextday|the first $weekday of $month}, {from seven until nine|starting at 7.30pm}, {and all are welcome|where residents can put questions to officers}.
{Comments|Objections} {can be sent to|should be addressed to} $body {until the end of $month|by $month}, {and the full report can be read at the library|with copies of the plans available on request}.
{The paper will report on|We will follow} {the next stage|how the changes settle down} {in the coming weeks|over the months ahead}; {readers with a view are invited to write in|letters on the subject are welcome}.
""")

NEWS_RESIDENT_AGES = ["73", "81", "a mother of three", "a nurse at the cottage hospital", "who runs the newsagent",
                      "a sixth-form student", "66", "58", "a retired postman", "a dairy farmer from the valley"]


def news(rng: random.Random) -> tuple[str, list[str]]:
    topic, event, noun, body, worry = rng.choice(NEWS_STORIES)
    town, town2 = place_name(rng), place_name(rng)
    off_first, off_sur, off_sex = person(rng)
    res_first, res_sur, _ = person(rng)
    cr_first, cr_sur, cr_sex = person(rng)
    year = rng.randint(2009, 2023)
    facts = {
        "town": town, "town2": town2, "river": river_name(rng), "street": rng.choice(V["street"]),
        "busno": str(rng.randint(12, 98)), "houses": str(rng.randrange(40, 460, 5)), "body": body,
        "weekday": rng.choice(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]),
        "prevday": rng.choice(["Monday evening", "Tuesday night", "last Thursday", "the previous week"]),
        "nextday": rng.choice(["Tuesday 14th", "Thursday 9th", "Wednesday 21st", "Monday 3rd", "Friday 27th"]),
        "startyear": str(year - rng.randint(2, 6)), "reviewyear": str(year + rng.randint(3, 6)),
        "oldyear": str(rng.randint(1968, 2004)), "closeyear": str(year - rng.randint(3, 9)),
        "cost": _money(rng, 80_000, 2_400_000, 5_000), "overrun": _money(rng, 8_000, 240_000, 1_000),
        "votes": f"{rng.randint(6, 11)} to {rng.randint(1, 5)}", "share": str(rng.randint(12, 64)),
        "month": rng.choice(V["month"]), "population": f"{rng.randrange(2_400, 19_000, 100):,}",
        "signatures": f"{rng.randrange(400, 4_800, 10):,}", "residentyears": str(rng.randint(14, 61)),
        "official": f"{off_first} {off_sur}", "official_he": pronouns(off_sex)["he"],
        "critic_he": pronouns(cr_sex)["he"], "resident": f"{res_first} {res_sur}", "critic": f"{cr_first} {cr_sur}",
        "resident_age": rng.choice(NEWS_RESIDENT_AGES), "job": rng.choice(["teacher", "builder", "nurse", "printer"]),
        "worry": worry, "topic": noun, "building": rng.choice(V["building"]),
    }
    facts["event"] = Filler(rng, facts, V, lambda s: s).fill(event)
    fill = Filler(rng, facts, V, tidy_en)
    blocks = [fill.one(NEWS["lede"]), fill.paragraph(NEWS["detail"], 2), fill.one(NEWS["quote"]),
              fill.paragraph(NEWS["detail"], rng.randint(1, 2)), fill.one(NEWS["quote2"]),
              fill.paragraph(NEWS["background"], 2), fill.one(NEWS["quote"]),
              fill.paragraph(NEWS["background"], 1), fill.paragraph(NEWS["detail"], 2),
              fill.paragraph(NEWS["next"], 2)]
    title = rng.choice([f"{noun[0].upper() + noun[1:]} divides opinion in {town}",
                        f"{town}: what the decision on {noun} means for residents",
                        f"Mixed reaction as {Filler(rng, facts, V, lambda s: s).fill(event)}",
                        f"{town} news: {noun} goes ahead"])
    return title, [b for b in blocks if b]


# ---------------------------------------------------------------------------------------------------- how-to

# task (after "how to"), the thing worked on, tools (a list), time needed, the usual mistake
HOWTO_TASKS = [
    ("fix a dripping tap", "the tap", "an adjustable spanner, a flat screwdriver and a new washer", "half an hour",
     "overtightening the headgear nut"),
    ("repaint a wooden window frame", "the frame", "a scraper, sandpaper, a small brush and exterior paint",
     "a dry weekend", "painting over damp wood"),
    ("true a bicycle wheel", "the wheel", "a spoke key, a cable tie and some patience", "an hour or so",
     "turning one spoke too far"),
    ("sharpen a kitchen knife", "the blade", "a whetstone, water and an old towel", "twenty minutes",
     "changing the angle halfway through a stroke"),
    ("bleed a radiator", "the radiator", "a radiator key and a cloth", "ten minutes",
     "forgetting to check the boiler pressure afterwards"),
    ("lay a simple brick path", "the path", "a spade, sharp sand, a rubber mallet and a spirit level",
     "two days", "skimping on the sub-base"),
    ("patch a hole in plasterboard", "the wall", "a filling knife, a mesh patch and ready-mixed filler",
     "an afternoon", "putting the filler on too thick"),
    ("start a sourdough starter", "the starter", "a jar, flour, water and kitchen scales", "a week",
     "giving up on the third day"),
    ("prune an apple tree", "the tree", "sharp secateurs, a pruning saw and gloves", "a winter morning",
     "taking out too much wood in one year"),
    ("regrout bathroom tiles", "the tiles", "a grout rake, grout, a float and a sponge", "a day",
     "letting the grout dry on the tile faces"),
    ("replace a bike chain", "the chain", "a chain tool, a ruler and a rag", "forty minutes",
     "fitting a chain of the wrong length"),
    ("build a compost bay", "the bay", "four pallets, wire, a drill and screws", "a Saturday",
     "putting it where nobody will walk to it"),
]

HOWTO = parse_banks("""
== intro
{If you have never tried to $task before|Anyone who has put off learning to $task}, {this guide is for you|the good news is that it is easier than it looks}: {it takes|allow} $time, and {you will not need a professional|the only real skill is patience}.
{Most people|Plenty of people} {pay someone to $task|assume they cannot $task themselves}, {but|yet} {with the right tools|once you know the order of the steps}, {it is a job anyone can do|a first attempt usually goes fine}.
{I learned to $task the hard way|The first time I tried to $task}, {with the wrong tools and no instructions|after watching a tradesman do it once}, {so here is what I wish someone had told me|and this is the guide I wanted then}.
{Knowing how to $task saves money|Being able to $task is a small but useful skill}, {and|but} {it also means|more than that, it means} {you are not left waiting for help|the job gets done when it suits you}.

== before
{Before you start|First of all}, {make sure|check} {you have $tools to hand|that $tools are within reach}; {hunting for a tool halfway through|stopping in the middle to look for something} {is how mistakes happen|is the most common reason jobs go wrong}.
{Give yourself more time than you think you need|Set aside more time than seems necessary}: {the job itself takes $time|$time is typical}, {but|although} {the first attempt is always slower|clearing up adds a surprising amount}.
{Clear the area around $thing|Make some space around $thing} {and lay down an old sheet|and put down newspaper}, {because|as} {things get messier than you expect|small parts have a habit of disappearing}.
{If $thing is old|Where $thing has been neglected for years}, {have a close look at it first|inspect it carefully before touching anything}: {sometimes|occasionally} {the real problem|the fault} is {somewhere else entirely|not where it appears to be}.
{Safety matters even for small jobs|Do not skip the boring part}: {wear gloves|keep a first-aid kit nearby}, and {turn off the water or power at the source|keep children and pets out of the way}.

== step
{Start by|Begin by} {looking at $thing from every side|cleaning $thing thoroughly}, {so that|because} {you can see what you are dealing with|dirt hides damage}.
{Work slowly|Take your time} {at this stage|here}, {checking your progress often|stopping every few minutes to look}; {it is much easier to do a little more than to undo too much|there is no prize for speed}.
{Next|Then}, {loosen|remove} {whatever holds $thing in place|the fixings one at a time}, {keeping the parts in order on a tray|laying the pieces out in the order they came off}.
{Once that is done|When you have got this far}, {test the fit before fixing anything permanently|try everything in place loosely first}; {adjustments are easy now and hard later|small gaps are much easier to fix at this point}.
{Clean|Wipe} {every surface|the area} {before you go on|at this point}, {since|because} {dust and grease stop anything sticking|grit will spoil the finish}.
{Apply|Use} {a thin, even layer|only a little at a time}, {working from one end to the other|moving in one direction}, {rather than|instead of} {piling it on in one go|trying to finish in a single pass}.
{Tighten everything gradually|Go round each fixing in turn}, {a quarter turn at a time|a little at a time}, {until it feels firm but not forced|checking that nothing has moved}.
{Leave it to settle|Let it rest} {for at least an hour|overnight if you can}; {the temptation to test it straight away is strong|this is the hardest step for impatient people}, {but|and} {it is worth waiting|it pays to resist}.
{Check your work in daylight|Look at the result again the next morning}, {because|since} {faults you missed the night before|small flaws} {are easier to see then|tend to show up in good light}.
{Finally|Last of all}, {put everything back the way it came apart|reassemble the parts in the reverse order|reassemble the parts the way they came apart}, {and|then} {clean your tools before putting them away|note anything you would do differently}.

== mistake
{The most common mistake|The mistake I see most often} is $mistake. {It seems harmless at the time|It feels like a shortcut}, {but|yet} {it undoes most of the work|you will end up starting again}.
{Do not rush the preparation|Resist the urge to skip ahead}: {nine times out of ten|in most cases}, {a poor result comes from the first ten minutes, not the last|problems trace back to a step that was hurried}.
{Cheap tools are a false economy here|Buying the cheapest tool rarely pays}: {a decent one|a good one} {costs a little more|is not much dearer} {and lasts for years|and makes the job far easier}.
{If something does not come apart easily|When a part refuses to move}, {stop and look again|do not force it}; {there is usually a hidden screw or clip|forcing it is how small jobs become expensive ones}.

== faq
{Do I need any unusual tools?|Is it worth buying dedicated tools?} {Not really|Rarely}: $tools {will do for most jobs|cover nearly everything}, and {you can borrow the rest|a neighbour probably has the rest}.
{How often should I do this?|How long will the result last?} {That depends on use|It varies}, {but|though} {once every year or two is typical|most people find it lasts several years} {if the job is done properly|with reasonable care}.
{What if it goes wrong?|What if I make a mess of it?} {Very little can go badly wrong|Mistakes are rarely permanent}: {stop, undo the last step and try again|take it apart and start the step again}, {and|or} {ask someone who has done it before|call in help if you are truly stuck}.

== outro
{That is really all there is to it|And that is it}: {once you have done it once|after the first time}, {the second attempt|the next job} {takes half as long|will feel routine}.
{If this guide helped|If you give it a go}, {let me know how you got on in the comments|leave a note below}, {and|or} {share your own tips|tell me what I have missed}.
{Keep a note of what you did and when|Write down the date and what you used}, {so|and} {next time|in a year or two} {you will not have to work it out again|you will know exactly where to start}.
""")


def howto(rng: random.Random) -> tuple[str, list[str]]:
    task, thing, tools, time, mistake = rng.choice(HOWTO_TASKS)
    facts = {"task": task, "thing": thing, "tools": tools, "time": time, "mistake": mistake}
    fill = Filler(rng, facts, V, tidy_en)
    blocks: list[str] = [fill.paragraph(HOWTO["intro"], 2)]
    blocks.append(rng.choice(["## Before you start", "## What you will need", "## Getting ready"]))
    blocks.append(fill.paragraph(HOWTO["before"], 2))
    blocks.append(fill.paragraph(HOWTO["before"], 1))
    blocks.append(rng.choice(["## Step by step", "## How to do it", "## The method"]))
    steps = fill.pick(HOWTO["step"], rng.randint(6, 8))
    # Two instructions a list item: one-line items would recur verbatim across guides.
    blocks += ["1. " + " ".join(steps[i:i + 2]) for i in range(0, len(steps), 2)]
    blocks.append(rng.choice(["## Common mistakes", "## What to avoid", "## Where it goes wrong"]))
    blocks.append(fill.paragraph(HOWTO["mistake"], 2))
    blocks.append(rng.choice(["## Questions readers ask", "## FAQ", "## A few questions"]))
    blocks.append(fill.paragraph(HOWTO["faq"], 2))
    blocks.append(fill.paragraph(HOWTO["outro"], 2))
    title = rng.choice([f"How to {task}", f"How to {task}: a beginner's guide", f"An easy way to {task}",
                        f"{task[0].upper() + task[1:]} in {time}"])
    return title, [b for b in blocks if b and b not in ("- ", "1. ")]


# ---------------------------------------------------------------------------------------------------- forum

FORUM_TOPICS = [
    # question title, the thing, the symptom
    ("Tomato leaves curling, what am I doing wrong?", "my tomato plants", "the lower leaves are curling and turning yellow"),
    ("Old bike gears keep slipping", "my old road bike", "the chain jumps every time I push hard on a hill"),
    ("Damp patch on bedroom wall", "the back bedroom", "a damp patch keeps coming back under the window"),
    ("Bread not rising in a cold kitchen", "my loaves", "the dough barely rises even after four hours"),
    ("Which walking boots for wide feet?", "my current boots", "I get blisters on the outside of both feet after five miles"),
    ("Sewing machine skipping stitches", "my mother's old sewing machine", "it skips every third or fourth stitch on thick cotton"),
    ("Chickens stopped laying", "our four hens", "not one egg in nearly two weeks"),
    ("Log burner smoking when the door opens", "the log burner", "smoke rolls into the room every time I open the door"),
    ("Lawn full of moss", "the back lawn", "half of it is moss and the grass is thin"),
    ("Car battery flat every Monday", "my car", "the battery is flat whenever it sits for a couple of days"),
]

FORUM = parse_banks("""
== question
{Hi all|Hello everyone}, {long-time reader, first post|I have been lurking for a while and finally joined}. {I am hoping someone can help with|I could use some advice about} $thing: $symptom.
{I have tried the obvious things|I have already tried what the internet suggests} ({$try1 and $try2|$try1, then $try2}) {but nothing has made any difference|with no luck so far}.
{It started about $weeks weeks ago|This began a few weeks back}, {and|but} {it has got steadily worse|it seems to come and go}. {Any ideas?|Has anyone seen this before?}
{Before anyone asks|For context}, {I am a complete beginner|I have been doing this for about $years years}, {so|and} {please go easy on me|I am not afraid of getting my hands dirty}.

== reply
{Sounds like|That sounds very much like} {a classic case of $cause|$cause to me}. {I had exactly the same thing last year|Happened to me a couple of years back}, {and|and in the end} {the fix was cheap|it took ten minutes to sort}.
{Before you spend any money|Before you buy anything}, {have a look at $check|rule out the simple things}. {Nine times out of ten that is the culprit|That is where I would start}.
{I would not worry too much|Do not panic}. {It looks worse than it is|It is very common}, {and|and in my experience} {it usually sorts itself out once $cause is dealt with|most people fix it without calling anyone in}.
{Can you post a photo?|A picture would help a lot.} {It is hard to say without seeing it|From the description it could be a few things}, {but|though} {my first guess would be $cause|I would bet on $cause}.
{Agree with the above|What $user1 said}. {I would add one thing:|One more thing to try:} {check $check as well|make sure you rule out $cause first}, {because|since} {it is easy to miss|it catches a lot of people out}.
{Slightly different view here|I am going to disagree a little}: {in my experience|from what I have seen} {it is rarely $cause|$cause gets blamed too often}. {I would start somewhere else entirely|My money would be on something simpler}.
{Not much to add|I cannot add much}, {but|except} {there is a good thread on this from a couple of years ago|the old pinned guide at the top of this board covers it well}; {worth a search|have a dig through the archive}.
{I run a small workshop|I have done this for a living for $years years}, {and|so take this with that in mind:} {most of the jobs I see like this|most cases like yours} {come down to $cause|turn out to be $cause}.

== followup
{Thanks everyone|Thank you all} for the replies. {I checked $check this morning|I had a proper look at $check at the weekend} and {you were right|it was exactly as $user1 said}: {$cause|it was $cause}.
{Update for anyone who finds this later|Quick update in case it helps someone}: {I sorted it|all fixed}. {It turned out to be $cause|The problem was $cause}, {and|and honestly} {I feel a bit silly now|it took less than an hour}.
{Still no joy, I am afraid|No luck yet}. {I have ruled out $cause|It is definitely not $cause}, {so|which means} {I will try $check next|the next step is $check}. {Will report back|I will post again when I know more}.
""")

FORUM_CAUSES = {
    "my tomato plants": (["overwatering", "too much feed", "a cold night", "root damage"], ["the drainage in the pots", "how often you water", "the feed you are using"], ["moving them into the greenhouse", "cutting back on water"]),
    "my old road bike": (["a worn chain", "a stretched cable", "worn sprockets", "a bent hanger"], ["the chain with a ruler", "the cable tension", "the rear mech hanger"], ["adjusting the barrel", "oiling the chain"]),
    "the back bedroom": (["condensation", "a blocked gutter", "bridged cavity insulation", "a cracked render"], ["the gutter above the window", "the airbricks outside", "the seal round the window"], ["a dehumidifier", "repainting with stain block"]),
    "my loaves": (["a starter that is not active enough", "the cold", "too little salt control", "old flour"], ["the temperature of the kitchen", "how lively the starter is", "the date on the flour"], ["a warmer spot by the oven", "adding more yeast"]),
    "my current boots": (["a narrow last", "lacing that is too tight", "the wrong socks", "boots half a size too small"], ["the width fitting", "how you lace them", "your socks"], ["thicker socks", "a second pair of insoles"]),
    "my mother's old sewing machine": (["a worn presser foot", "the wrong thread weight", "threading that has slipped", "lint under the plate"], ["the presser foot", "the bobbin case", "the tension dial"], ["rethreading it", "changing the thread"]),
    "our four hens": (["the short days", "a moult", "stress from a fox", "too little protein"], ["how much light they get", "the feed", "whether something has been bothering them at night"], ["changing their feed", "adding a light"]),
    "the log burner": (["a cold flue", "a blocked chimney", "damp logs", "too little air in the room"], ["the chimney", "how dry the logs are", "the air vent"], ["burning hotter", "opening the window"]),
    "the back lawn": (["shade", "poor drainage", "mowing too short", "acid soil"], ["how much sun it gets", "the drainage", "the height of the mower"], ["raking it out", "a bag of lawn feed"]),
    "my car": (["a parasitic drain", "an old battery", "an alternator on its way out", "a light left on in the boot"], ["the boot light", "the battery age", "the charging voltage"], ["charging it overnight", "a new battery"]),
}


def forum(rng: random.Random) -> tuple[str, list[str]]:
    title, thing, symptom = rng.choice(FORUM_TOPICS)
    causes, checks, tries = FORUM_CAUSES[thing]
    users = []
    while len(users) < 7:
        h = handle(rng)
        if h not in users:
            users.append(h)
    facts = {"thing": thing, "symptom": symptom, "try1": tries[0], "try2": tries[1],
             "weeks": str(rng.randint(2, 6)), "years": str(rng.randint(3, 30)), "user1": users[1]}
    fill = Filler(rng, facts, V, tidy_en)

    blocks = [f"{users[0]} wrote: " + fill.paragraph(FORUM["question"], 3)]
    order = rng.sample(range(1, len(users)), rng.randint(4, 6))
    for n, u in enumerate(order):
        fill.facts["cause"] = rng.choice(causes)
        fill.facts["check"] = rng.choice(checks)
        fill.facts["user1"] = users[order[n - 1]] if n else users[0]
        text = fill.paragraph(FORUM["reply"], rng.randint(1, 2))
        if text:
            blocks.append(f"{users[u]} replied: " + text)
        if n == len(order) // 2 or n == len(order) - 1:
            fill.facts["cause"] = rng.choice(causes)
            fill.facts["check"] = rng.choice(checks)
            more = fill.paragraph(FORUM["followup"], 1)
            if more:
                blocks.append(f"{users[0]} replied: " + more)
    return title, blocks


# ---------------------------------------------------------------------------------------------------- reviews

# kind, name pattern, what it is, good points, bad points, the price phrase. Every point is singular: the
# templates say "$good1 was obvious", "$bad1 is a real nuisance", and the product is "it" throughout.
REVIEW_KINDS = [
    ("café", ["The $surname Rooms", "$street Kitchen", "Café $first", "The Copper Pot", "Bread and Salt"],
     ["the cheese scone", "the soup of the day", "the coffee", "the window table", "the service"],
     ["the queue at lunchtime", "the narrow staircase", "the background music", "the cramped seating"],
     "lunch for two came to $price"),
    ("walking boot", ["the Ridgeway Mid", "the Fellsman GTX", "the Tarn Lite", "the Scout Two"],
     ["the grip on wet rock", "the ankle support", "the stiff sole", "the lacing system"],
     ["the weight", "the break-in period", "the narrow toe box", "the squeaky tongue"],
     "a pair costs $price"),
    ("novel", ["The Salt Road", "A Winter Orchard", "The Lighthouse Accounts", "Under the Weir", "Small Hours"],
     ["the dialogue", "the sense of place", "the opening chapter", "the supporting cast"],
     ["the ending", "the middle section", "the back story", "the length"],
     "the hardback is $price"),
    ("hotel", ["The $surname Arms", "the Harbour View", "the Old Rectory", "the Railway Inn"],
     ["the breakfast", "the welcome at the desk", "the peace and quiet", "the view from the top floor"],
     ["the plumbing", "the car park", "the soundproofing", "the slow wifi"],
     "a double room was $price a night"),
    ("electric bike", ["the Commuter 500", "the Vale E7", "the Townsend Step-Through", "the Metro Cargo"],
     ["the battery range", "the braking", "the upright riding position", "the built-in lighting"],
     ["the weight", "the display", "the kickstand", "the charger cable"],
     "it retails at $price"),
    ("kettle", ["the Brisk 1.7", "the Morning Steel", "the Quiet Boil", "the Classic Dome"],
     ["how quickly it boils", "the clear water gauge", "the pouring spout", "the cord storage"],
     ["the noise", "the stiff lid", "the smeary steel finish", "the short cord"],
     "it costs $price"),
]

REVIEW = parse_banks("""
== open
{I had been meaning to try $name for months|$name had been on my list for a long time}, {and a wet Saturday finally gave me the excuse|so when a friend suggested it last week, I jumped at the chance}.
{There is no shortage of|Nobody needs another} {reviews of $name|opinions about $name} online, {but|so} {here is mine, from someone with no axe to grind|I will try to say something the others have not}.
{First impressions matter|I judge a lot by the first five minutes}, {and|and with} $name {they were good|the first five minutes were promising}: $good1 {stood out straight away|was obvious from the start}.
{My expectations were low|I went in sceptical}, {having been let down by|after a bad experience with} {the last $kind I tried|a similar $kind a couple of years ago}.
{Word of mouth brought me to $name|A colleague would not stop talking about $name|Friends in $town swear by $name|Several readers wrote in about $name}, {so|and so} {I finally gave in|I went to see what the fuss was about} {last month|a few weeks ago}.
{Full disclosure|To be clear|For the record|Just so you know}: {I paid for this myself|nobody sent me anything for free}, {and|and} {I have no connection with the people behind $name|this review is entirely my own opinion}.

== good
{Straight away|Right from the start|Within minutes|On the very first day}, $good2 {made a good impression|won me over}, {and|and} {it only got better|nothing since has changed my mind}.
{Credit where it is due|Fair play|To give them their due|In fairness}: {someone has clearly sweated over $good1|$good1 is as good as anything I have come across}, {and|and} {it shows|you notice it every time}.
{The best thing about $name|What sets $name apart} is $good1, {which is|and it is} {genuinely better than anything else I have tried at this price|better than it has any right to be}.
{I was also impressed by|Credit too for} $good2: {it is the kind of detail that|small touches like this} {shows someone has thought hard about it|makes the difference over months of use}.
{Honourable mention|A word of praise} for $good3, {which I did not expect to care about|which I barely noticed at first} {and now would not do without|but came to rely on}.
{Over $weeks weeks|After $weeks weeks of regular use}, $good1 {has not let me down once|is still as good as on the first day}, {which is more than I can say for most things I buy|and that matters a great deal}.

== bad
{It is not perfect, though|There are drawbacks}. $bad1 {is a real nuisance|let it down}, and {I found myself|I kept} {wishing someone had tested it more|noticing it every single time}.
{My main complaint|The biggest weakness} is $bad1. {It will not bother everyone|Some will not mind}, {but|yet} {if it matters to you, look elsewhere|it took the shine off for me}.
{A smaller gripe|A minor point}: $bad2. {It is easy to live with|You get used to it}, {but|though} {at this price I expected better|it should have been sorted before launch}.
{Others have complained about|Several reviewers mention} $bad2, {and I can see why|and I have some sympathy}, {although|but} {in my case it was not a deal-breaker|I found it less of a problem than I feared}.
{Less happily|On the downside|Then there is|Where it falls short is}, $bad2 {started to bother me|became hard to ignore} {after a week or so|by the second visit}, {and|and} {I doubt I am alone|others have said the same}.
{Oddly enough|Strangely|Curiously|Surprisingly}, $bad1 {seems to vary|is not consistent}: {some days it is fine|on a good day you barely notice it}, {on others it spoils everything|but on a bad one it is all you notice}.

== value
{Money matters|Cost matters too|Price is part of it|Then there is the money}: $pricephrase, {and|and} {I would call that reasonable|you could do worse for the money}, {if not a bargain|though it is hardly cheap}.
{As for value|On price}, $pricephrase, {which is|and that is} {fair for what you get|at the top end of what I would pay|a little steep, if I am honest}.
{Would I buy it again?|Would I go back?} {Probably|Yes, on balance}, {but|though} {I would wait for a sale|I would go in with slightly lower expectations}.
{Compared with|Set against} {its obvious rivals|the competition}, $name {holds its own|comes out ahead in most respects}, {and it is the one I would recommend to a friend|even if it is not the cheapest}.

== verdict
{Verdict|In short}: {four stars out of five|three and a half stars}. {Recommended, with reservations|A good choice for most people}, {especially if $good1 is what you care about|unless $bad1 matters to you}.
{If you are on the fence|If you are undecided}, {try it for yourself|go and see it in person}; {that is the only way to know|other people's taste is a poor guide}, {and|but} {I suspect you will be pleasantly surprised|mine was a happy experience overall}.
""")


def review(rng: random.Random) -> tuple[str, list[str]]:
    kind, names, goods, bads, price = rng.choice(REVIEW_KINDS)
    first, surname, _ = person(rng)
    good = rng.sample(goods, 3)
    bad = rng.sample(bads, 2)
    facts = {"kind": kind, "first": first, "surname": surname, "street": rng.choice(V["street"]).split()[0],
             "town": place_name(rng),
             "good1": good[0], "good2": good[1], "good3": good[2], "bad1": bad[0], "bad2": bad[1],
             "weeks": str(rng.randint(3, 14)), "price": f"£{rng.randint(12, 240)}"}
    facts["name"] = Filler(rng, facts, V, lambda s: s).fill(rng.choice(names))
    facts["pricephrase"] = Filler(rng, facts, V, lambda s: s).fill(price)
    fill = Filler(rng, facts, V, tidy_en)
    blocks = [fill.paragraph(REVIEW["open"], 3),
              rng.choice(["## The good", "## What I liked", "## Highlights"]),
              fill.paragraph(REVIEW["good"], 2), fill.paragraph(REVIEW["good"], 2),
              rng.choice(["## The not so good", "## What could be better", "## Niggles"]),
              fill.paragraph(REVIEW["bad"], 3),
              rng.choice(["## Value", "## Is it worth it?", "## Price"]),
              fill.paragraph(REVIEW["value"], 3), fill.paragraph(REVIEW["verdict"], 2)]
    stars = rng.choice(["four stars", "three and a half stars", "4 out of 5", "worth a visit"])
    title = rng.choice([f"Review: {facts['name']}", f"{facts['name']} review ({stars})",
                        f"Tried and tested: {facts['name']}", f"Is {facts['name']} any good? An honest review"])
    return title[0].upper() + title[1:], [b for b in blocks if b]


# ---------------------------------------------------------------------------------------------------- profiles

PROFILE = parse_banks("""
== open
{$name, who has died aged $age,|$name, who died on $month $day at the age of $age,} {was|had been} {a familiar figure in $town for more than half a century|one of the best-known $jobs in the district}.
{For $years years|Over a career of $years years}, $name {ran|kept} {a small $workplace on $street|the $workplace that $his father had opened}, {and|where} {few people in $town did not know $him|generations of customers came to rely on $his advice}.
{Born in $town in $born|Born in $born, the $ordinal of $siblings children of a $parentjob}, $name {left school at fifteen|went to the grammar school in $town2} and {began work as an apprentice|found work at the $works}.

== life
{In $married|At the age of $marriedage} $he married $spouse, {whom $he had met at a dance in $town2|a teacher at the village school}, {and|and together} they {had $kids children|brought up $kids children in the house on $street}.
{During the war|In the hard winter of 1963}, $name {served with the local fire service|kept the $workplace open when others closed}, {a time $he rarely spoke about|something $he remained quietly proud of}.
{Outside work|Away from the $workplace}, $his {great passion was|lasting love was} $hobby, and $he {won prizes at the county show|served as secretary of the club} for {more than twenty years|several decades}.
{Friends remember|Those who knew $him remember} {a generous, private $person|a $person with a sharp wit and a long memory}, {who never turned anyone away|who could name every family on $street}.
{$He was a founder member of|$He helped to start} {the local history society, and its archive of photographs owes much to $him|the town's first youth club, and for many years $he organised its summer outings}.
{In retirement|After $he handed the business on}, $name {took up painting, and $his watercolours of the river hang in half the houses on $street|wrote a short history of $town, which sold out its first printing}.
{Customers|Regulars} {still tell the story of|still talk about} {the night $he opened the $workplace at midnight for a doctor who needed a part|the year $he refused to raise $his prices}, {and|and it says a good deal about $him that} {$he never mentioned it $himself|nobody can remember $him taking a holiday}.
{In $his seventies|Well into $his eighties} $name {still walked to the $workplace every morning|was still to be seen on $street most mornings}, {stopping to talk to anyone who had the time|with a word for everyone $he passed}.

== end
$He is survived by $spouse, {$kids children and $grandkids grandchildren|their $kids children and a large extended family}. {A service will be held|The funeral takes place} at {the parish church|$church} on $nextday.
{$spouse writes|A neighbour writes}: "{$He never thought of $himself as anyone out of the ordinary|$He would have hated a fuss}, {but|and} {the whole street feels emptier without $him|we will all miss $him}."
""")

PROFILE_HOBBIES = ["bell-ringing", "growing leeks", "brass band music", "fly fishing", "the allotment", "cricket",
                   "dry-stone walling", "choral singing", "local history", "breeding pigeons"]


def profile(rng: random.Random) -> tuple[str, list[str]]:
    first, surname, sex = person(rng)
    sp_first, _, _ = person(rng, "f" if sex == "m" else "m")
    job, workplace = rng.choice([("bakers", "bakery"), ("ironmongers", "hardware shop"), ("cobblers", "shoe shop"),
                                 ("chemists", "pharmacy"), ("butchers", "butcher's shop"), ("printers", "print shop"),
                                 ("booksellers", "bookshop"), ("watch repairers", "repair shop")])
    born = rng.randint(1928, 1946)
    pr = pronouns(sex)
    facts = {"name": f"{first} {surname}", "age": str(2024 - born - rng.randint(0, 2)), "month": rng.choice(V["month"]),
             "day": str(rng.randint(1, 28)), "town": place_name(rng), "town2": place_name(rng),
             "jobs": job, "workplace": workplace, "street": rng.choice(V["street"]), "years": str(rng.randint(30, 55)),
             "born": str(born), "ordinal": rng.choice(["eldest", "youngest", "second", "third"]),
             "siblings": rng.choice(["four", "five", "six", "three"]),
             "parentjob": rng.choice(["railwayman", "farm labourer", "miner", "carter", "mill worker"]),
             "works": rng.choice(["gasworks", "paper mill", "brickworks", "railway sheds"]),
             "married": str(born + rng.randint(20, 28)), "marriedage": str(rng.randint(20, 28)),
             "spouse": sp_first, "kids": rng.choice(["two", "three", "four"]),
             "grandkids": rng.choice(["five", "six", "seven", "nine"]), "hobby": rng.choice(PROFILE_HOBBIES),
             "church": f"{rng.choice(V['saint'])}'s", "nextday": rng.choice(["Friday at 2pm", "Tuesday at 11am", "Thursday at noon"]),
             "he": pr["he"], "He": pr["He"], "him": pr["him"], "his": pr["his"],
             "himself": "himself" if sex == "m" else "herself", "person": "man" if sex == "m" else "woman"}
    fill = Filler(rng, facts, V, tidy_en)
    life = fill.pick(PROFILE["life"], 7)  # in the bank's (chronological) order
    blocks = [fill.paragraph(PROFILE["open"], 3), " ".join(life[:2]), " ".join(life[2:4]), " ".join(life[4:]),
              fill.paragraph(PROFILE["end"], 2)]
    title = rng.choice([f"Obituary: {first} {surname}", f"{first} {surname}, {born}-2024",
                        f"{first} {surname}: a life in {facts['town']}"])
    return title, [b for b in blocks if b]


# ---------------------------------------------------------------------------------------------------- encyclopedia

# An invented ship, society, instrument maker or sports club, written up in reference style.
ENCY_KINDS = {
    "ship": ("paddle steamer", "$name was a $what built in $built by $builder of $town for the $river crossing",
             ["Design", "Service history", "Preservation"]),
    "club": ("rowing club", "$name is a $what founded in $built on the $river at $town",
             ["History", "Boathouse", "Notable members"]),
    "maker": ("organ builder", "$builder and Sons was a firm of $whats based in $town from $built until $ended",
              ["History", "Instruments", "Legacy"]),
    "railway": ("narrow-gauge railway", "$name was a $what of $gauge gauge that ran for $miles miles from $town to $town2",
                ["History", "Route", "Closure and afterlife"]),
}

ENCY = parse_banks("""
== origin
{The idea was first proposed|Plans were first drawn up} in $proposed by $founder, {a local $founderjob|then the owner of A_ $works in $town}, {who|and he} {raised the money by public subscription|persuaded $backers to back the venture}.
{By $built|Within $delay years}, {a total of|some} $funds had been raised, {roughly $share per cent of it from small shareholders in $town|much of it in shares of ten pounds}.
{Early accounts describe|Contemporary newspapers describe} {an enthusiastic opening|a crowd of several thousand at the opening}, with {a brass band from $town2|speeches from the mayor and the vicar of $town}.
{The first decade was difficult|Early years were hard}: {a fire in $fire destroyed the original records|debts of $debt forced a reorganisation in $fire}, and {the enterprise was nearly wound up|several directors resigned}.
{Under $manager, who took charge in $managed,|From $managed, when $manager took over,} the {business|undertaking} {recovered|expanded steadily}, {reaching its peak in the years before the First World War|and by $peak it employed $staff people}.

== body
{At its largest, $name measured|In its final form $name measured} $length {in length|from end to end}, {which made it|making it} {the largest of its kind in the county|unusual for the period}.
{Surviving drawings|Drawings in the county record office} {show|suggest} a plain but carefully finished design, {with|including} {cast-iron fittings from a foundry in $town2|timber brought by canal from the coast}.
{Between $peak and $decline|In the period $peak to $decline}, {an average of|about} $passengers {people used it each year|passengers were carried each year}, {according to the annual reports|figures that were never matched again}.
{A photograph of $photo|A well-known photograph from $photo} {shows|records} {the whole staff lined up in front of the building|a crowd on the quay on a regatta day}, {and|and it} {is often reproduced in local histories|hangs today in the museum at $town}.
{Its working life was not without incident|There were several accidents}: {in $accident|during the winter of $accident} {a collision in fog|a burst boiler} {caused damage estimated at $debt|led to a public inquiry}, {although nobody was killed|which criticised the management}.
{Wages were low|Pay was modest} {even by the standards of the time|compared with the mills}, {and|but} {a strike in $strike|a dispute in $strike} {won|secured} {a shorter working week|the first paid holiday}.

== end
{A blue plaque|A small memorial plaque|An information board|A brass plate} {now marks the site|was unveiled in $preserved}, {paid for by|thanks to} {the civic society|a local fundraising appeal}.
{Competition from road transport|The spread of motor buses} {after $decline|in the years after $decline} {cut its income sharply|made it uneconomic}, and {it closed in $ended|the last regular service ran in $ended}.
{Much of the original fabric survives|Parts of the structure survive}; {since $preserved|from $preserved onwards}, {a volunteer trust|a preservation society} {has looked after what remains|has restored part of it}, {opening it to visitors on summer weekends|with help from a lottery grant}.
{It features in|It is mentioned in} {a novel by a local author|several guidebooks of the 1930s} and {a watercolour of it|a model of it} {is held by the museum at $town|can be seen in the library at $town2}.
{Historians disagree about|There is some debate over} {whether it ever made a profit|why it failed}, {since|because} {the accounts for several key years are missing|the surviving figures are incomplete}.
""")


def encyclopedia(rng: random.Random) -> tuple[str, list[str]]:
    kind = rng.choice(sorted(ENCY_KINDS))
    what, lead, sections = ENCY_KINDS[kind]
    first, surname, _ = person(rng, "m")
    m_first, m_surname, _ = person(rng)
    built = rng.randint(1820, 1895)
    town = place_name(rng)
    name = {"ship": f"{rng.choice(['Countess', 'Duchess', 'Queen', 'Lady', 'Princess'])} of {town}",
            "club": f"{town} Amateur Rowing Club", "maker": f"{surname} and Sons",
            "railway": f"{town} and {rng.choice(['District', 'Valley', 'Moor'])} Railway"}[kind]
    # Reference style names the subject without an article, so "the" never stands before a bare name.
    peak = built + rng.randint(20, 40)
    decline = peak + rng.randint(10, 25)
    facts = {"name": name, "what": what, "whats": what + "s", "built": str(built), "builder": f"{first} {surname}",
             "town": town, "town2": place_name(rng), "river": river_name(rng),
             "ended": str(decline + rng.randint(5, 20)), "gauge": rng.choice(["two-foot", "three-foot", "2 ft 6 in"]),
             "miles": str(rng.randint(5, 19)), "proposed": str(built - rng.randint(2, 6)),
             "founder": f"{first} {surname}", "founderjob": rng.choice(["solicitor", "miller", "brewer", "banker"]),
             "works": rng.choice(["brewery", "tannery", "paper mill", "ironworks"]),
             "backers": rng.choice(["his neighbours", "the corporation", "a group of local traders"]),
             "delay": rng.choice(["two", "three", "four"]), "funds": f"£{rng.randrange(2_000, 48_000, 100):,}",
             "share": str(rng.randint(20, 70)), "fire": str(built + rng.randint(2, 9)),
             "debt": f"£{rng.randrange(300, 9_000, 50):,}", "manager": f"{m_first} {m_surname}",
             "managed": str(built + rng.randint(10, 18)), "peak": str(peak), "decline": str(decline),
             "staff": str(rng.randint(18, 240)), "length": rng.choice(["142 feet", "96 feet", "58 metres", "210 feet"]),
             "passengers": f"{rng.randrange(8_000, 190_000, 500):,}", "photo": str(peak + rng.randint(-8, 3)),
             "accident": str(peak - rng.randint(1, 12)), "strike": str(peak + rng.randint(1, 8)),
             "preserved": str(rng.randint(1968, 2004))}
    fill = Filler(rng, facts, V, tidy_en)
    lead_text = fill.fill(lead) + "."
    blocks = [lead_text + " " + fill.paragraph(ENCY["origin"], 1), f"## {sections[0]}",
              fill.paragraph(ENCY["origin"], 2), fill.paragraph(ENCY["origin"], 2), f"## {sections[1]}",
              fill.paragraph(ENCY["body"], 3), fill.paragraph(ENCY["body"], 2), f"## {sections[2]}",
              fill.paragraph(ENCY["end"], 2), fill.paragraph(ENCY["end"], 2)]
    return name, [b for b in blocks if b]


# ---------------------------------------------------------------------------------------------------- listicles

# Things to do in a town: each item is a short paragraph about one named place, with its own facts.
LIST_ITEMS = parse_banks("""
== item
{Walk|Take the path} along the $river from {the old mill|the bridge at $street} to {the weir|the water meadows}: {about $miles miles there and back|an easy $miles-mile stretch on the flat}, {with|and} {benches every few hundred yards|a tea hut at the far end that opens at weekends}.
{Climb|Head up} to {the top of $hill|$hill above the town} {early in the morning|on a clear evening}; {on a good day|when the haze lifts} {you can see three counties|the view reaches the coast}, and {it takes|the climb takes} {barely forty minutes|under an hour} {from the market place|from the station}.
{Spend an hour in|Do not miss} the {$town Museum|little museum on $street}, {which is free|where entry costs $small}, {and|and whose} {has a room of old shop signs|collection of photographs of the $river in flood is worth the visit alone}.
{Try|Order} {the $food at the $inn|a plate of $food at the $inn}, {a pub that has been on $street since $year|an old coaching inn by the bridge}; {book ahead on Fridays|it fills up quickly on market days}.
{Browse|Lose an afternoon in} {the second-hand bookshop on $street|$surname's Books}, {where the stock spills out onto the pavement|where the back room is full of old maps of the county}; {the owner will find anything if you give $pron a week|ask about the box of postcards under the counter}.
{Visit|Time your visit for} the {Thursday market|farmers' market on the first Saturday of the month}, {when|as} {about $stalls stalls|some $stalls traders} {fill the square|set up on $street} {from eight until two|by nine o'clock}.
{Hire a bike from|Rent a bicycle at} {the shop by the station|$surname Cycles} ({$small for the day|about $small a day}) {and ride the old railway line|and follow the signed loop} {out to $village|through $village and back}; {it is almost flat|the gradient never gets steep}.
{Look inside|Step into} {the parish church|$saint's church}, {mostly $century|largely rebuilt in $year}, {for|to see} {its painted ceiling|the carved bench ends} {and|and, if you are lucky,} {the bell ringers practising on a Wednesday evening|a lunchtime concert}.
{Sit out|Find a table} at {the café in the old toll house|$surname's tea room}, {which serves|known for} {a fine lemon cake|the best scones in the district}, and watch the boats going through the lock.
{Go swimming at|Take the children to} {the lido|the open-air pool}, {restored by volunteers in $poolyear|reopened in $poolyear after years of neglect}; {it is heated|the water is cold but clean}, and {a day ticket costs $small|there are lifeguards all summer}.
{Catch|Look out for} {a show at the Playhouse|a film at the Regal}, {a tiny theatre on $street|the restored cinema by the bus station}, {where|whose} {the programme changes weekly|seats number barely a hundred}; {tickets rarely cost more than $small|the bar is good too}.
{End the day at|Finish with a drink at} {the $inn|the riverside terrace of the $inn}, {where|and} {the sunset over the $river|the view across the river} {is worth the wait|makes up for the slow service}.
""")


def listicle(rng: random.Random) -> tuple[str, list[str]]:
    town = place_name(rng)
    first, surname, sex = person(rng)
    facts = {"town": town, "village": place_name(rng), "river": river_name(rng), "street": rng.choice(V["street"]),
             "hill": f"{place_name(rng)} {rng.choice(V['hill_suffix'])}", "miles": str(rng.randint(2, 6)),
             "small": f"£{rng.randint(3, 15)}", "food": rng.choice(V["food"]), "year": str(rng.randint(1790, 2019)),
             "inn": rng.choice(["Bell", "Swan", "Plough", "Anchor", "Golden Fleece", "Mitre", "Woolpack", "Boat"]),
             "surname": surname, "pron": pronouns(sex)["him"], "stalls": str(rng.randint(18, 90)),
             "saint": rng.choice(V["saint"]), "century": rng.choice(["thirteenth-century", "fifteenth-century", "Norman"]),
             "years": str(rng.randint(6, 40)), "poolyear": str(rng.randint(1998, 2021)), "since": str(rng.randint(1984, 2018))}
    fill = Filler(rng, facts, V, tidy_en)
    items = fill.pick(LIST_ITEMS["item"], rng.randint(8, 11))
    rng.shuffle(items)
    intro = fill.paragraph(LIST_INTRO["intro"], 2)
    outro = fill.paragraph(LIST_INTRO["outro"], 2)
    title = rng.choice([f"{len(items)} things to do in {town}", f"A weekend in {town}: {len(items)} ideas",
                        f"{town} for first-timers: what to see and do", f"The best of {town}, by a local"])
    blocks = [intro, *("- " + i for i in items), rng.choice(["## Getting there", "## Practical details"]), outro]
    return title, [b for b in blocks if b not in ("", "- ")]


LIST_INTRO = parse_banks("""
== intro
{$town is easy to overlook|Most people drive straight past $town} {on the way to somewhere grander|without a second glance}, {which|and that} {is their loss|suits those of us who live here}.
{I have lived in $town for $years years|I have lived in $town since $since}, {and|and in that time} {friends keep asking me what there is to do|I have been asked for this list more times than I can remember}. {Here, in no particular order, is my answer|This is the list I send them}.
{None of this costs much|Almost all of it is free or cheap}, {and|and most of it} {can be done in a weekend|is within walking distance of the station}.
== outro
{Trains run from|There are trains from} {the county town|the junction} {every hour|twice an hour}, {and|and} {the station is a five-minute walk from the market place|the journey takes about twenty minutes}.
{If you come by car,|Drivers should know that} {the long-stay car park by the river is cheapest|parking in the centre is limited on market days, but the long-stay car park by the river has room}; {it is a short walk from there|the short walk in is pleasant anyway}.
{Go in late spring or early autumn|The best months are May and September}, {when|as} {the crowds are thinner|the light on the river is at its best} {and|and} {the cafés are still open|the footpaths are dry}.
""")


# ---------------------------------------------------------------------------------------------------- recipes

# dish, main ingredient, ingredient list items, cooking time, serving note
RECIPES = [
    ("leek and potato soup", "leeks", ["three large leeks, washed and sliced", "four floury potatoes, peeled and diced",
     "a knob of butter", "a litre of vegetable stock", "a splash of milk"], "forty minutes", "with crusty bread"),
    ("lentil and tomato stew", "lentils", ["250 g red lentils, rinsed", "a tin of chopped tomatoes",
     "one onion, finely chopped", "two cloves of garlic", "a teaspoon of ground cumin"], "half an hour", "with rice or flatbread"),
    ("apple and blackberry crumble", "apples", ["four cooking apples, peeled and sliced", "a punnet of blackberries",
     "150 g plain flour", "100 g cold butter, cubed", "75 g demerara sugar"], "forty-five minutes", "with custard"),
    ("baked trout with herbs", "trout", ["two whole trout, cleaned", "a bunch of parsley", "one lemon, sliced",
     "a little olive oil", "salt and black pepper"], "twenty-five minutes", "with new potatoes"),
    ("mushroom and barley risotto", "barley", ["200 g pearl barley", "300 g chestnut mushrooms, sliced",
     "one shallot, diced", "a glass of dry cider", "a handful of grated hard cheese"], "fifty minutes", "with a green salad"),
    ("oat and honey flapjacks", "oats", ["250 g rolled oats", "125 g butter", "three tablespoons of honey",
     "75 g light brown sugar", "a pinch of salt"], "thirty minutes", "with a cup of tea"),
    ("cheese and onion pasties", "cheese", ["a block of shortcrust pastry", "200 g strong cheddar, grated",
     "two onions, thinly sliced", "one potato, boiled and cubed", "an egg for glazing"], "an hour", "warm or cold"),
    ("spiced carrot cake", "carrots", ["300 g carrots, grated", "200 g self-raising flour", "three eggs",
     "150 ml sunflower oil", "a teaspoon of cinnamon"], "an hour and ten minutes", "with cream cheese icing"),
]

RECIPE = parse_banks("""
== story
{Every $season|Each year around this time|Most weekends this $season|Whenever the evenings draw in}, {I end up making $dish|I find myself cooking $dish} {at least once a week|more often than anything else}, {and|and} {nobody has complained yet|the children have stopped asking what is for tea}.
{This recipe came from|I was given this recipe by|My version of $dish started with|The original of this recipe belonged to} {my grandmother|a neighbour in $town|an old church cookbook|a friend who ran a café}, {though|but} {I have changed it a good deal over the years|it has drifted a long way from the original}.
{Nothing about $dish is difficult|There is nothing clever about $dish|You need no particular skill for $dish|Anyone can make $dish}: {it is cheap|the ingredients are cheap}, {it keeps well|leftovers are even better the next day}, and {it takes about $time|the whole thing takes $time}.
{We grew our own $main this year|The $main at the market were too good to pass up|A glut of $main from the allotment|A neighbour left a bag of $main on the step}, {which is how this post came about|so this seemed the obvious thing to make}.
{Before the recipe, a confession|First, an admission|I should say at the start|Let me be honest}: {I rarely measure anything|I have burnt this more than once|I make it differently every time}, {so|and} {treat the quantities as a guide|adjust it to suit yourself}.
== tips
{If you can, make it a day ahead|Where possible, cook it the day before|Give it time to rest if you can|Leave it overnight if you have the patience}; {the flavours settle|everything tastes rounder the next day}, {and|and} {it reheats beautifully|reheating takes only a few minutes}.
{Swap in|Try using|Replace some of the $main with|Feel free to use} {whatever is in season|what you have in the cupboard}, {since|because} {the recipe is forgiving|very little can go wrong}.
{Do not be tempted to|Try not to|Resist the urge to|Avoid the temptation to} {turn the heat up to speed things along|skip the resting time}; {patience|a low heat} {is what makes it|makes all the difference}.
{Freezing works well|It freezes well|Spare portions freeze without trouble|This keeps in the freezer for months}, {so|and} {I usually make a double batch|it is worth cooking extra}, {labelled with the date|in small tubs}.
{For a vegetarian version|To make it vegan|For a richer result|For a lighter version}, {change the stock|leave out the butter|add a little cream at the end|use less sugar}; {it works just as well|nobody will notice the difference}.
== end
{Serve $serve|We eat it $serve|It is best $serve|I like it $serve}, {and|and} {let me know in the comments how yours turns out|tell me if you find a way to improve it}.
{Happy cooking|Enjoy|Good luck with it|Let me know how you get on}, {and|and} {thanks for reading this far|see you next week with something sweet|if you make it, tag me in a photo}.
""")

METHOD = parse_banks("""
== pan
{Heat|Warm} {the butter|a little oil} in a large pan over a {gentle|medium} heat, {then|and} {add the onion|add the first vegetables} {with a pinch of salt|and stir to coat}.
{Cook slowly|Let everything soften} for {ten|about eight} minutes, {stirring now and then|stirring occasionally}, {until|so that} {nothing has browned|the kitchen starts to smell good}.
{Stir in|Add} the $main {and the rest of the ingredients|along with everything else}, {bring it up to a simmer|cover the pan}, and {leave it to bubble gently|let it cook} {for $time|until tender}.
{Taste|Check the seasoning} {before serving|at the end}, {adding|with} {more salt or a squeeze of lemon|a little pepper} {if it needs it|as you like}.
== oven
{Preheat the oven to|Set the oven to|Warm the oven to} {180 C|190 C|200 C} {while you prepare the rest|before you start}, {and|then} {grease a dish|line a tin with baking paper}.
{Tip the mixture into the dish|Spread everything in the tin} {and level the top|in an even layer}, {then|and} {bake for $time|put it in the oven for $time}, {until golden|until it is firm to the touch}.
{Leave to cool|Rest it} {for ten minutes|briefly} {before cutting|before serving}, {which|as this} {makes it easier to portion|lets it set}.
{Rub|Work} the butter into the flour {with your fingertips|using cold hands} {until it looks like breadcrumbs|until no large lumps remain}, {then|and} {stir in the sugar|fold in the rest of the dry ingredients}.
{Turn the dish round|Rotate the tin} {halfway through|after twenty minutes} {so it colours evenly|because most ovens have a hot side}, {and|and} {cover it loosely with foil|lower the heat a little} {if the top is browning too fast|should it darken early}.
""")


def recipe(rng: random.Random) -> tuple[str, list[str]]:
    dish, main, ingredients, time, serve = rng.choice(RECIPES)
    facts = {"dish": dish, "main": main, "time": time, "serve": serve, "town": place_name(rng),
             "season": rng.choice(V["season"])}
    fill = Filler(rng, facts, V, tidy_en)
    story = fill.pick(RECIPE["story"], 4)
    blocks = [" ".join(story[:2]), " ".join(story[2:]),
              rng.choice(["## Ingredients", "## You will need", "## What you need"])]
    blocks += ["- " + tidy_en(i) + "." for i in ingredients]
    blocks.append(rng.choice(["## Method", "## How to make it", "## Steps"]))
    oven = dish.split()[-1] in ("crumble", "flapjacks", "pasties", "cake", "herbs")
    blocks += ["1. " + s for s in fill.pick(METHOD["oven" if oven else "pan"], rng.randint(3, 4))]
    blocks.append(rng.choice(["## Tips", "## Notes", "## A few tips"]))
    blocks.append(fill.paragraph(RECIPE["tips"], 3))
    blocks.append(fill.paragraph(RECIPE["end"], 2))
    title = rng.choice([f"{dish[0].upper() + dish[1:]}", f"Easy {dish}", f"My {dish}",
                        f"{dish[0].upper() + dish[1:]} for {with_article(facts['season'] + ' evening')}"])
    return title, [b for b in blocks if b not in ("", "- ")]


# ---------------------------------------------------------------------------------------------------- letters

# Letters to the editor of a local paper: a complaint or a thank-you, signed with name and street.
LETTER_SUBJECTS = [  # (subject, a plural noun phrase for it, the office responsible)
    ("the state of the pavements on $street", "the pavements", "highways department"),
    ("the closure of the public toilets by the bus station", "the toilets", "district council"),
    ("speeding on the road past the primary school", "the speed limits", "police"),
    ("the new parking charges in the market place", "the parking arrangements", "town council"),
    ("the loss of the hedgerow along Mill Lane", "the hedgerows", "planning department"),
    ("litter along the river path", "the river banks", "parish council"),
    ("the reduced hours at the library", "the library hours", "county council"),
    ("the plan to move the war memorial", "the memorial gardens", "town council"),
]

LETTER = parse_banks("""
== open
{Sir|Dear Editor|Madam|To the Editor}, {I write to express my dismay at|may I draw your readers' attention to|I must protest about|I wonder how many of your readers share my concern about} $subject.
{Like many people in $town|As a resident of $street for $years years|Speaking as a parent|As someone who walks into town every day}, {I have watched|I have seen} {the situation get worse|things go steadily downhill} {over the past year|since last spring}.
== body
{Only last week|On Tuesday|Twice this month|Just the other day}, {an elderly neighbour|a young mother with a pushchair|a visitor to the town|my own grandson} {was caught out|ran into trouble} because of $short, {and|and} {it cannot go on like this|something must be done before it happens again}.
{When I raised this with|Having written to|After I complained to|When I telephoned} the $office, {I was told|the reply was} that {there is no money|it is not a priority} {this year|at present}, {which|and that} {frankly is not good enough|seems to me a poor answer}.
{Surely it is not too much to ask|Is it really too much to ask} that $short {be looked after properly|get the attention they deserve}?
{Other towns manage it|Neighbouring $town2 seems to cope|Villages half our size do better|Our grandparents would not have stood for it}; {I see no reason|there is no good reason} why $town {should be any different|cannot do the same}.
{Some years ago|Back in $oldyear|Not so long ago|Within living memory}, {a man from the council|a team of workmen} {came round every spring|could be seen every few weeks}, {and|and} {nobody thought twice about it|the town was the better for it}.
{Photographs in the museum|Old postcards of $town|Pictures from the fifties|Snapshots my father took} {show|remind us} {how things used to look|what we have lost}, {and|and} {the contrast is painful|I defy anyone to look at them without a pang}.
{Visitors notice these things|Tourists are not blind|People passing through form opinions|First impressions matter}, {and|and} {the traders of $town can ill afford|the shops on $street cannot afford} {to be judged by $short|the damage to the town's name}.
{Perhaps|Maybe} {volunteers could help|a working party of residents could make a start}, {if|provided} {the council supplied the tools|someone in authority gave the word}; {I for one would turn out|I know several neighbours who would join in}.
{In fairness|To be fair|I accept that|Admittedly}, {money is tight everywhere|councils have had a hard few years}, {but|yet} {small repairs now would save large bills later|neglect always costs more in the end}.
== close
{I would urge|May I encourage|Could I ask} {your readers|anyone who agrees} {to write to their councillor|to attend the next public meeting}, {so that|in the hope that} {our voices are heard|something is finally done}.
{Yours faithfully|Yours sincerely|With thanks for the space|Regards}, $signed, $street.
""")


def letter(rng: random.Random) -> tuple[str, list[str]]:
    subject, short, office = rng.choice(LETTER_SUBJECTS)
    first, surname, _ = person(rng)
    street = rng.choice(V["street"])
    facts = {"street": street, "town": place_name(rng), "town2": place_name(rng), "years": str(rng.randint(8, 52)),
             "oldyear": str(rng.randint(1975, 2005)), "short": short, "office": office, "signed": f"{first[0]}. {surname}" if rng.random() < 0.5 else f"{first} {surname}"}
    facts["subject"] = Filler(rng, facts, V, lambda t: t).fill(subject)
    fill = Filler(rng, facts, V, tidy_en)
    body = fill.pick(LETTER["body"], 7)
    blocks = [fill.paragraph(LETTER["open"], 2), " ".join(body[:2]), " ".join(body[2:5]), " ".join(body[5:]),
              fill.paragraph(LETTER["close"], 2)]
    title = rng.choice([f"Letter: {short} need attention", f"Letters: on {facts['subject']}", f"Your views: {short}"])
    return title, [b for b in blocks if b]


# ---------------------------------------------------------------------------------------------------- what's on

EVENTS = parse_banks("""
== item
{$Day $date|On $Day $date}: {a talk on|an illustrated talk about} {the history of $street|the mills of the $river valley|old shop fronts of $town} by {local historian $person|$person of the civic society}, at {the library|the parish hall} {from 7.30pm|at 7pm}; {tickets $price, including tea|admission $price at the door}.
{Every Saturday in $month|Saturdays through $month}, {the repair café|a repair café run by volunteers} {opens its doors|sets up} in {the community centre|the old schoolroom} {from ten until one|between 10am and 1pm}; {bring|take along} {broken lamps, bikes and clothes|anything that needs mending} and {someone will try to fix it|a volunteer will have a go}.
{The $town Choral Society|The community choir|The $town Silver Band|A string quartet from the county music school} {gives|performs} {its spring concert|a programme of folk songs and hymns|an evening of light classics} at {$saint's church|the Methodist chapel} on $Day $date; {tickets $price from the post office|children go free}.
{A guided walk|A gentle stroll|A nature walk|A dawn chorus walk} {along the $river|up $hill} {leaves from|starts at} {the station car park|the market cross} at {9am|half past nine} on {$Day $date|the first Sunday of $month}; {stout shoes advised|dogs on leads are welcome}, {about $miles miles|roughly $miles miles in all}.
{Plant sale|Seed swap|Book sale|Table-top sale} {in aid of|raising money for} {the cottage hospital|the lifeboat|the scout hut roof|the church bells} {at|in} {the church hall|the primary school playground} on $Day $date, {ten till noon|from 10am}; {donations welcome the evening before|refreshments available}.
{Film night|Cinema club|Classic film evening|Family film afternoon} {at the Regal|in the village hall}: {a restored print of a fifties comedy|a recent documentary about the coast} on $Day $date, {doors 7pm|starting at 2.30pm}; {$price on the door|free for members}.
{Craft fair|Christmas market|Makers' market|Local produce market} {in the corn exchange|on $street} on $Day $date, with {more than $stalls stalls|some $stalls local makers}, {a raffle|live music} and {mulled apple juice|hot food from the scouts}; {open 10am to 4pm|entry free}.
{Blood donor session|Flu clinic|Health check drop-in|Hearing aid clinic} at {the medical centre|the community centre} on $Day $date; {appointments|places} {can be booked|should be booked} by phone, {though walk-ins are welcome|and there is level access}.
{Quiz night|Curry and quiz evening|Fish and chip supper with quiz|Race night} at {the $inn|the cricket club} on $Day $date, {teams of up to six|tables of six}, {$price a head|$price per person including supper}; {proceeds to|all money raised goes to} {the playground fund|the youth club}.
{Open gardens day|Scarecrow trail|Village open day|Heritage open day} on $Day $date: {$stalls gardens|a dozen houses} {open their gates|take part} {from 11am|between 11 and 5}, {with teas in the school|maps $price from the shop}.
""")


def whats_on(rng: random.Random) -> tuple[str, list[str]]:
    town = place_name(rng)
    month = rng.choice(V["month"])
    first, surname, _ = person(rng)
    facts = {"town": town, "month": month, "river": river_name(rng), "street": rng.choice(V["street"]),
             "hill": f"{place_name(rng)} {rng.choice(V['hill_suffix'])}", "person": f"{first} {surname}",
             "saint": rng.choice(V["saint"]), "inn": rng.choice(["Bell", "Swan", "Plough", "Anchor", "Mitre"]),
             "miles": str(rng.randint(3, 9)), "stalls": str(rng.randint(12, 60))}
    fill = Filler(rng, facts, V, tidy_en)
    items = []
    # A real calendar (of a year the listing does not print): "Wednesday 16 October" and "Thursday 16 October"
    # in one diary contradict each other.
    year, month_no = rng.randint(2015, 2026), V["month"].index(month) + 1
    for template in rng.sample(EVENTS["item"], rng.randint(6, 9)):
        day = rng.randint(1, 28)
        fill.facts["Day"] = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")[
            datetime.date(year, month_no, day).weekday()]
        fill.facts["date"] = f"{day} {month}"
        fill.facts["price"] = f"£{rng.randint(2, 12)}"
        if template in fill.used:
            continue
        fill.used.add(template)
        _PENDING.append(template)  # counted like Filler.pick's choices when the document is accepted
        items.append(fill.fill(template))
    intro = fill.paragraph(WHATS_ON["intro"], 2)
    outro = fill.paragraph(WHATS_ON["outro"], 1)
    title = rng.choice([f"What's on in {town}: {month}", f"{town} events diary, {month}", f"Out and about in {town} this {month}"])
    return title, [b for b in [intro, *("- " + i for i in items), outro] if b not in ("", "- ")]


WHATS_ON = parse_banks("""
== intro
{Here is our round-up of|Below is this month's list of|Welcome to the diary of|As usual, here are} {what is happening in and around $town|events in $town and the villages nearby} {in $month|this $month}. {Organisers can send listings to the usual address|Listings are free for community groups}, {and|and} {the deadline is the 20th of the month before|please include a contact number}.
== outro
{Details were correct at the time of going to press|Please check with organisers before setting out|Times and prices may change}, {and|and} {we cannot accept responsibility for changes|the paper is not responsible for cancellations}.
""")


# ---------------------------------------------------------------------------------------------------- advice column

# (who, the problem as the title states it, the problem as the letter tells it after "For six months now,"
# or "Since the spring," (those want a present perfect: "has been borrowing", not "borrows"), the topic)
ADVICE_PROBLEMS = [
    ("my sister", "borrows money and never pays it back", "has been borrowing money and never paying it back",
     "the money"),
    ("a neighbour", "parks across our drive most mornings", "has been parking across our drive most mornings",
     "the parking"),
    ("my oldest friend", "has stopped returning my calls", "has not returned a single one of my calls", "the silence"),
    ("my son", "wants to leave university after one term", "has been talking about leaving university",
     "his decision"),
    ("a colleague", "takes credit for my work in meetings", "has been taking credit for my work in meetings",
     "the meetings"),
    ("my father", "refuses to stop driving at eighty-nine", "has refused to stop driving, at eighty-nine",
     "the driving"),
    ("our landlord", "keeps ignoring the damp in our flat", "has ignored the damp in our flat", "the damp"),
    ("my partner", "wants to move to the coast and I do not", "has been set on moving to the coast while I am not",
     "the move"),
]

ADVICE = parse_banks("""
== letter
{For about $months months now|Since the spring|Over the last year|For longer than I care to admit}, $who $problem, {and|and} {I am at my wits' end|I no longer know what to do}.
{Whenever I raise it|Each time I try to bring it up|If I so much as mention it|The moment I hint at it}, {there is a row|I am told I am making a fuss}, {so|and so} {I have started to keep quiet|I say nothing and stew}.
{My husband thinks|My wife says|Friends tell me|Everyone around me seems to think} {I should let it go|I am overreacting}, {but|yet} {it keeps me awake at night|I cannot stop thinking about it}.
{Am I being unreasonable?|Is there a way through this?|What would you do in my place?|Where do I go from here?} {I would be grateful for any advice|Any thoughts would help}.
== answer
{What a wearing situation|This sounds exhausting|I can hear how tired you are|You have my sympathy}, {and|and} {you are right not to simply swallow it|you are not being unreasonable}.
{Before anything else|First of all|To begin with|As a first step}, {choose a calm moment|pick a time when neither of you is rushed} {to talk about $topic|for a proper conversation}, {rather than|not} {in the heat of the moment|straight after another incident}.
{Be specific|Stick to facts|Describe what happens|Keep it concrete}: {say what has happened and how it affects you|name the last two or three occasions}, {without|and avoid} {dragging up every old grievance|guessing at motives}.
{It may help to|You might|Consider whether to|Try to} {write down what you want to say beforehand|decide in advance what outcome you would accept}, {so that|because then} {you do not lose your thread|the conversation has somewhere to go}.
{If talking fails|Should that get nowhere|If nothing changes|Where goodwill runs out}, {there are practical steps|you still have options}: {a letter setting out your position|advice from the citizens' advice bureau|a quiet word with someone both of you trust} {can make a difference|is often enough}.
{Remember, too, that|Bear in mind that|Do not forget that|It is worth saying that} {you cannot control how others behave|other people's choices are theirs}, {only|but you can choose} {how much room you give them in your life|what you put up with}.
{Look after yourself meanwhile|In the meantime, be kind to yourself|Meanwhile, lean on your friends|Take care of your own sleep and health}: {a problem like this|worry of this kind} {grows in the dark|is easier to carry when shared}.
{Write again and tell me how it goes|Do let me know what happens|I would love to hear how you get on|Please write back if it does not improve}; {I suspect you are stronger than you feel|many readers will recognise your letter}.
""")


def advice(rng: random.Random) -> tuple[str, list[str]]:
    who, problem, ongoing, topic = rng.choice(ADVICE_PROBLEMS)
    facts = {"who": who, "problem": ongoing, "topic": topic, "months": rng.choice(["six", "eight", "ten", "eighteen"])}
    fill = Filler(rng, facts, V, tidy_en)
    answer = fill.pick(ADVICE["answer"], 7)
    signed = rng.choice(["Worn Out, by email", f"Name withheld, {place_name(rng)}", "Tired of It", "Anxious Reader"])
    blocks = [fill.paragraph(ADVICE["letter"], 4) + f" {signed}.", rng.choice(["## The answer", "## Our columnist replies"]),
              " ".join(answer[:2]), " ".join(answer[2:5]), " ".join(answer[5:])]
    title = rng.choice([f"Dear {rng.choice(['Margaret', 'Jean', 'Ruth', 'Alan'])}: {who} {problem}",
                        f"Problem page: {who} {problem}", f"Ask the agony aunt: {who} {problem}"])
    return title[0].upper() + title[1:], [b for b in blocks if b]


# ---------------------------------------------------------------------------------------------------- minutes

MINUTES = parse_banks("""
== apologies
{Apologies were received from|Apologies came from|Sending apologies were|Unable to attend were} $absent1 and $absent2{|, both away on holiday|, who were unwell}.
{The minutes of the last meeting|Minutes of the $prevmonth meeting|Last month's minutes|The previous minutes} {were agreed as a true record|were approved without amendment|were accepted, proposed by $member1 and seconded by $member2}.
== item
{The treasurer reported|$treasurer, as treasurer, reported|Our treasurer told the meeting|It was reported by the treasurer} that {the current account stands at $balance|funds stand at $balance}, {with $owed still owed by members|and the hall hire for the year has been paid}.
{Members discussed|There was a long discussion about|The meeting debated|Views were exchanged on} {the annual outing|the summer show|the Christmas dinner}, {and|and} {it was agreed to|the committee will} {book the coach from $town2|ask the $inn for a quote} {before the next meeting|by the end of $month}.
{A letter from|Correspondence included a note from|The secretary read a letter from|Members heard a message from} {the district council|the county federation|a former member now living in $town2}, {asking|inviting} {the club|us} to {take part in the town festival|send a team to the county competition}; {it was agreed to accept|this will be considered next month}.
{Concern was raised about|$member1 raised the question of|Several members mentioned|Attention was drawn to} {the state of the hall kitchen|falling numbers at weekday sessions|the cost of insurance}, {and|and} {$member2 offered to look into it|a small working group was set up}.
{Thanks were recorded to|The chair thanked|A vote of thanks went to|Members applauded} $member2 {for organising the spring sale, which raised $raised|for repainting the noticeboard|for twenty years on the committee}.
{Under any other business|In other business|Among other matters|Finally, under other business}, {it was noted that|members heard that} {the hall will be closed in $month for rewiring|the club's website has moved|two new members have joined}, {and|and} {$member1 will circulate the details|a notice will go in the newsletter}.
== close
{The meeting closed at|There being no further business, the meeting ended at|The chair closed the meeting at|Proceedings ended at} {9.10pm|8.45pm|9.25pm}. {The next meeting will be held|Next meeting:} on {the second Tuesday of $nextmonth|Thursday $nextdate} {at the usual place|in the committee room}.
""")


def minutes(rng: random.Random) -> tuple[str, list[str]]:
    club = rng.choice(["Horticultural Society", "Camera Club", "Bowls Club", "Women's Institute", "Allotment Association",
                       "Walking Group", "Local History Society", "Cycling Club"])
    town = place_name(rng)
    people = []
    while len(people) < 5:
        f, sname, _ = person(rng)
        if f"{f} {sname}" not in people:
            people.append(f"{f} {sname}")
    months = V["month"]
    m = rng.randrange(12)
    facts = {"absent1": people[0], "absent2": people[1], "member1": people[2], "member2": people[3], "treasurer": people[4],
             "prevmonth": months[m - 1], "month": months[m], "nextmonth": months[(m + 1) % 12],
             "nextdate": f"{rng.randint(2, 27)} {months[(m + 1) % 12]}", "balance": f"£{rng.randrange(300, 9000, 7):,}",
             "owed": f"£{rng.randint(20, 240)}", "raised": f"£{rng.randint(90, 900)}", "town2": place_name(rng),
             "inn": rng.choice(["Bell", "Swan", "Plough", "Anchor", "Mitre", "Crown"])}
    fill = Filler(rng, facts, V, tidy_en)
    blocks = [f"{town} {club}: minutes of the committee meeting held on {rng.randint(1, 28)} {months[m]}.",
              fill.paragraph(MINUTES["apologies"], 2), "## Matters discussed"]
    blocks += ["- " + s for s in fill.pick(MINUTES["item"], rng.randint(4, 6))]
    blocks.append(fill.paragraph(MINUTES["close"], 1))
    return f"{town} {club}: {months[m]} minutes", [b for b in blocks if b not in ("", "- ")]
