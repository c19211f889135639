"""Short stories: small-town lives, errands, weather and returns."""

from __future__ import annotations

import random

from corpus_gen.en_vocab import FESTIVALS, OCCUPATIONS, V, person, place_name, pronouns, river_name
from corpus_gen.engine import Filler, parse_banks, tidy_en

PLOTS = {
    "return": {
        "goal": "meet the evening train",
        "title": ["The letter from $dest", "$friend comes home", "The last train from $dest", "A visitor in $season"],
    },
    "repair": {
        "goal": "fetch a new spring for the chapel clock",
        "title": ["The chapel clock", "$hero and the clock", "A matter of springs and wheels", "Before the $festival"],
    },
    "delivery": {
        "goal": "get this parcel to a house there before nightfall",
        "title": ["The parcel for $dest", "An errand in $season", "The road to $dest", "Before nightfall"],
    },
    "storm": {
        "goal": "get the boats above the weir before the river rises",
        "title": ["High water", "The night the $river rose", "Boats above the weir", "A wet night in $season"],
    },
    "search": {
        "goal": "ask my aunt there where my mother kept her papers",
        "title": ["What the house kept", "$hero's inheritance", "The box in the attic", "Old papers"],
    },
}

BANKS = parse_banks("""
== opening
{Every morning|Each morning|For twenty years} $hero $last {opened|unlocked} the $workplace on $street {at seven|before the church bell struck eight|as the first carts came in from the farms}, and {that $season morning was no different|on that particular morning $he saw no reason to do otherwise}.
$town in $season was {a grey, patient place|a town of wet slates and wood smoke|quiet enough to hear the $river from the market place}, and $hero, {who was the town's $job|the $job}, knew {most of its people by their footsteps|every house by the sound of its door|which chimneys smoked and which did not}.
{It had rained for three days, and the lanes were heavy with mud|The frost had come early that year, and the fields below the town had turned white and hard|The wind had been in the east for a week, and the fields below the town were grey and sodden}.
$He was {a careful person|not a person who liked surprises|someone who kept lists}, and {$his days had the shape of a well-worn coat|$his life had settled, over the years, into a comfortable order}: {work until noon, bread and cheese, work until dark|a walk by the $river, a morning's work, an evening with the newspaper}.
{Since $his $relative_dead had died|After $his $relative_dead's death}, $hero had lived alone {in the narrow house on $street|above the $workplace|in the cottage at the end of the lane}, and {had grown used to the quiet|did not often think about how quiet it had become}.
{The town clock|The church clock} {was always five minutes slow|struck the quarters a little late}, and $hero {had long ago stopped minding|set $his day by it all the same}.
{Outside|Beyond the window}, @sky, and {@sound|the sound of the $river} {came and went|could be heard} {as $he worked|while $he drank $his tea}.

== town_life
{Across the street|Next door}, {the baker's wife was taking down the shutters, as she did every morning|the ironmonger was sweeping his step, as he did every morning|old Mr $other_last was arguing with a delivery boy, as he did most mornings}.
{On market days|On Thursdays} the square filled with {carts and stalls|farmers and their dogs}, and {the gossip moved from one end of the town to the other faster than any newspaper|the talk was all of prices and the weather until the church clock struck noon}.
{Children|Schoolchildren} {ran past the window|dawdled past} on their way to school, {swinging their satchels|kicking a stone between them}, and {the milk cart made its slow round at half past eight|the coal cart rattled over the cobbles before nine}.
{People in $town|The people of $town} {did not say much|were not great talkers}, but they {noticed everything|missed very little}, {and $hero had long ago stopped minding|which $hero had long since learned to accept}.
{In the evenings|After dark} {the lamps were lit along $street, and the town drew in on itself like a cat curling up by the fire|the only light came from the inn, and the streets emptied as if everyone had agreed on it beforehand}.
The $river {ran under the bridge|went past the bottom of the garden} {brown and quick in winter, clear in summer|in all weathers}, and {$hero measured the seasons by it|$hero could have told the month by its colour}.

== homeward
{The way back|The walk home} {seemed shorter|took half the time}, {as return journeys do|the way it always does}, and {the sky had cleared so that the stars were out over the moor|the wind had dropped by the time they reached the crossroads}.
$helper {left $hero at the bridge|turned off at the farm gate} with {a nod|a wave of the lantern} and a promise to {call in on Sunday|come by for a cup of tea}.
{The house|The kitchen} was cold {when $hero let $himself in|and dark}, {but $he lit the fire and sat by it with $his boots steaming on the fender|but $he did not mind, and sat for a long time without lighting the lamp}.

== inciting_return
The letter came {on a Tuesday|with the second post|on the morning of $his birthday}, in handwriting $hero had not seen for {eleven|fourteen|nearly twenty} years: $friend, $his $relative, was coming home.
$hero read it {twice|three times}, standing in the doorway, and then {sat down at the kitchen table|put it on the mantelpiece} {without taking $his coat off|and looked at it for a long time}.
{The letter was short|It said very little}: $friend would arrive {on the evening train at $dest|at $dest on Friday}, {would stay a week, perhaps longer|had a great deal to tell}, and hoped $hero would {be there|come to meet the train}.

== inciting_repair
{On Monday|That afternoon} $visitor {brought in the chapel clock|came in carrying the chapel clock wrapped in a blanket}, {which had stopped at twenty past four and would not start again|whose hands had not moved since the first frost}.
"{It has not missed a day in sixty years|My father wound this clock every Sunday}," {$visitor said|said the visitor}, setting it down on the bench. "{The $festival is on Saturday|We need it by Saturday}, and {the town will not feel right without it|people will ask}."
$hero {lifted the case|opened the back} and looked at {the worn wheels|the brass movement}, {dark with old oil|furred with dust}, and {did not say what $he thought|said only that $he would see what could be done}.

== inciting_delivery
{Late in the morning|Just before noon} {a boy|the carrier's boy|a young man from the station} {brought a parcel|left a parcel on the counter}, {wrapped in brown paper and tied with string|heavier than it looked}, {addressed to a house at $dest|with an address at $dest written on the label}.
The usual carrier {had broken an axle|would not go out to $dest until the following week}, {and|so} the note {tucked under the string|inside the wrapping} {asked $hero, as a favour, to take it out that day|said, politely, that the matter could not wait}.
$hero {weighed it in $his hands|turned it over}, {looked at the sky|looked out at the road}, and {fetched $his boots|went to find $his coat and stick}.

== inciting_storm
{By mid-afternoon|Towards evening} the $river {had risen to the second step of the landing|was the colour of strong tea and running fast}, and {the men at the boathouse were already shaking their heads|the ferryman said it would be over the meadows by midnight}.
The boats at $dest {belonged to half the town|were the club's only property|had been there since before the war}, and {if they were not brought up above the weir they would be lost|nobody wanted to think about what the water would do to them}.
$hero {pulled on $his oilskin|took the lantern from its hook} and set off {without waiting for supper|before anyone could argue}.

== inciting_search
{After the funeral|When the house was finally empty}, $hero {found a note in $his mother's hand|came across a list among $his mother's things} that mentioned {a box of papers|a tin box} {"kept safe for the children"|"to be opened later"}.
{Nobody knew where it was|$friend, $his $relative, had no idea what it meant}, and {the solicitor could only shrug|the neighbours remembered nothing}, so $hero {began to search|started, methodically, with the attic}.
{The house held a lifetime of things|Every room was full of drawers}, and {every cupboard seemed to have been arranged for a reason|each drawer had its own small history}.

== prepare
{That evening|All that evening} $hero {could not settle|moved from room to room}, {picking things up and putting them down again|straightening pictures that did not need straightening}.
$He {remembered|found $himself remembering} {a summer long ago|the year of the great flood|a day at the fair when they were children}, when $he and $old_friend had {taken a boat out on the $river without asking|walked all the way to $dest and back|climbed the church tower for a bet}.
{Before bed|At last} $he {set out $his good coat|laid out what $he would need}, {wound the kitchen clock|checked the lamp}, and {lay awake for a long time|slept better than $he had expected}.

== prepare_return
There were things $he {wanted|had meant} to say, and $he {rehearsed them in the kitchen|tried them out as $he washed the cups}, {but none of them sounded right|until they no longer sounded like anything at all}.

== journey
{The road to $dest|The lane out of $town} {ran beside the $river|climbed past the last farms} and then {crossed the open moor|wound through the woods}, and $hero had walked it {more times than $he could remember|as a child with $his father}.
{The wind|A cold wind} {came across the fields|pushed at $his back}, and {the ditches ran with water|the hedges were full of dead leaves}; {a few rooks|a heron} rose from the {field|bank} as $he passed.
{At the crossroads|By the old toll house} $hero {stopped to rest|paused to catch $his breath}, and {looked back at $town, smaller than $he had ever seen it|saw the town below, its roofs shining in the wet}.
{Once a cart passed|For a while a farmer on a bicycle kept pace with $him}, {with a nod|raising a hand}, and after that $hero had the road to $himself.
{Halfway along the lane|Beyond the bridge} {the weather changed|the light began to go}, and $he {quickened $his pace|pulled $his collar up}, thinking about {the errand ahead|what lay ahead}.

== meeting
{At the bridge|Outside the inn|By the gate of the last farm} $he met $helper, {who kept the toll house|who drove the milk cart|the $helper_job}, {leaning on the rail|sheltering under a sack|with a lantern in one hand}.
"{@greeting|Well}, $hero," said $helper. "{Where are you off to in this weather?|You are a long way from home.|I did not expect to see anyone on the road today.}"
"{To $dest|Out to $dest}," said $hero. "I have to $goal."
$helper {looked at the sky and then at $hero|considered this and nodded slowly}. "{You will not do it alone," $helper_he said. "Give me a moment to find my coat|It will be dark in an hour," $helper_he said. "Come on, I will walk with you|Then I had better come too," $helper_he said. "Wait while I fetch the lantern}."
{They|The two of them} {went on together|walked on side by side}, {talking of nothing much|saying little}, {and $hero was glad of the company|and $hero found that $he no longer minded the weather}.

== complication
{Then|At that point} {the rain came on in earnest, and there was nothing to do but turn back and go the long way round|they found a cart overturned across the lane, and there was nothing to do but wait|they found the bridge under water, and they had no choice but to go the long way round}.
For {an hour|a long while} {they sheltered in a barn and listened to the rain|they stood under the trees, watching the light go}, and $hero {began to think the whole thing had been a mistake|wondered whether it was worth it}.
{Once a dog barked at them from a farmyard|Somewhere in the wood an owl called}, and {they both laughed|$hero jumped}, {more from nerves than anything else|and felt foolish afterwards}.
{It was fully dark|Night had come} by the time {they reached the last rise|the lights of $dest appeared}; {the lamp had gone out|$hero's boots were full of water}, and {neither of them said a word|both were too tired to speak}.

== resolution_return
{The train was late|The train came in forty minutes late}, {but it came|and then, all at once, it was there}, and {among the people stepping down|at the far end of the platform} was $friend, {older, thinner, but unmistakable|grey-haired now, but with the same way of standing}.
{For a moment|At first} neither of them {said anything|moved}. Then $friend {laughed|put down the bag}, and {all the speeches $hero had rehearsed|everything $hero had planned to say} {went out of $his head|no longer mattered}.
"{You came|You are here}," said $friend. "{I was not sure you would|I thought you might not}." "{Of course I came|Where else would I be}," said $hero, and {took the bag|picked up the heavier of the two bags}.

== resolution_repair
The old clockmaker at $dest {had the spring in a drawer|found the spring in a biscuit tin}, but {back in the workshop|late on Friday night} $hero {found the real fault|discovered the trouble}: {a worn pivot|a bent tooth on the third wheel|a hair caught in the escapement}, {so small that $he laughed aloud|which had hidden from $him for three days}.
{When the pendulum swung|When $he set it going}, {the tick filled the workshop|the sound filled the room}, {steady as a heartbeat|as if it had never stopped}, and $hero {sat and listened to it|did not move} for {a long time|the better part of an hour}.
{On Saturday morning|At the $festival} the clock {struck ten in the chapel|was back in its place}, and {nobody|hardly anyone} {knew what it had cost|thought to ask what had been done}, {which was exactly as it should be|and $hero did not mind at all}.

== resolution_delivery
The house at $dest was {dark except for one window|half hidden by laurels}, and $recipient {looked at the parcel|took the parcel} {as if it were something $recipient_he had given up expecting|with both hands}.
{Inside|Under the paper} {were letters, tied in bundles|was a small clock, wrapped in cloth|were photographs, tied with ribbon}, {sent back after many years|returned at last by a family in the city}, and {for a while nobody spoke|$recipient_short sat down very suddenly}.
{They made $hero stay for soup|There was tea, and then there was soup}, and {it was nearly midnight|the church clock had struck eleven} {when $he finally walked home|before $he set off back}, {under a sky that had cleared|with a borrowed lantern}.

== resolution_storm
{With the water at their knees they dragged the last boat up the slipway and lashed it to the railings|In the last hour before midnight the last boat was hauled over the bank and tied to the big willow}, and {they stood there, soaked through, laughing|nobody had the breath to say anything}.
{By morning|At first light} {the meadows were a grey lake, but the boats sat above the weir in a neat row, like cattle brought in from a field|the meadows had disappeared under water, and the boats lay safe above the weir as if nothing had happened}.
{Half the town came down to look|People came down all morning to look}, and {someone|the ferryman's wife} {brought a can of tea|brought bread and bacon}, {which was the best thing $hero had ever tasted|which tasted better than any meal $hero could remember}.

== resolution_search
{In the end|At last} {it was not in the attic at all, nor where the aunt remembered it|it turned up in the least likely place}: {under the loose board beneath the kitchen dresser|behind the false back of the linen cupboard}, {wrapped in oilcloth|wrapped in an old apron}.
{Inside|In the box} {were letters|were papers}, {a few photographs|a ribbon}, and {a notebook in which $his mother had written the names of everyone she had ever taught|a list in $his mother's hand of every birth and marriage in the family}.
$hero {sat on the kitchen floor|did not get up} {and read until the light went|for a long time}, {and felt, for the first time since the funeral, that the house was not empty|and the house seemed, for once, less quiet}.

== coda
{Years later|Long afterwards|When people asked about it later}, $hero {would tell the story|still told the story} {a little differently each time|as if it had been nothing much}, {but $he never forgot|though $he always remembered} {the cold|the sound of the $river that night|how the light looked on the road}.
{That winter|The following spring} {things went back to their old order|life in $town resumed its usual shape}, but not quite: {the kitchen seemed less quiet|$hero found $himself walking by the $river in the evenings|$he kept the lantern by the door, trimmed and ready}.
{Some evenings|On certain evenings}, {when the wind was in the east|when the bells rang for practice}, $he {would stop whatever $he was doing|would put down $his work} and {listen|look out of the window}, {as if waiting for something|remembering}.
$He did not talk about it often, but {that day|the memory of that day} would come back to $him at odd moments, {sharp and clear|as clear as the day itself}.
It was strange, $hero thought afterwards, how {a single day|one evening} could {rearrange a whole life|change the shape of the years}, {quietly, like furniture moved in the night|without anyone noticing but you}.
""")

OTHER_JOBS = ["toll-keeper", "carrier", "district nurse", "shepherd", "lock-keeper", "farm manager"]
VISITORS = ["the vicar", "old Mrs $other_last", "the churchwarden", "the chapel steward"]
# (how the recipient is introduced, pronoun, how the recipient is named later)
RECIPIENTS = [("the old woman who opened the door", "she", "the old woman"),
              ("the old man who answered the door", "he", "the old man")]


def document(rng: random.Random) -> tuple[str, list[str]]:
    plot_name = rng.choice(sorted(PLOTS))
    plot = PLOTS[plot_name]
    first, last, sex = person(rng)
    friend_first, _, friend_sex = person(rng)
    helper_first, helper_last, helper_sex = person(rng)
    other_last = rng.choice(V["surname"])
    job, workplace = ("clockmaker", "workshop") if plot_name == "repair" else rng.choice(OCCUPATIONS)
    recipient, recipient_he, recipient_short = rng.choice(RECIPIENTS)
    p = pronouns(sex)
    relative = rng.choice(["brother", "cousin", "oldest friend", "nephew"] if friend_sex == "m"
                          else ["sister", "cousin", "oldest friend", "niece"])
    festival, _month = rng.choice(FESTIVALS)
    facts = {
        "hero": first,
        "last": last,
        "town": place_name(rng),
        "dest": place_name(rng),
        "river": river_name(rng),
        "street": rng.choice(V["street"]),
        "season": rng.choice(["autumn", "winter", "early spring", "late autumn"]),
        "job": job,
        "workplace": workplace,
        "friend": friend_first,
        "relative": relative,
        # The search is for the hero's mother's papers, so in that plot it is the mother who has died.
        "relative_dead": "mother" if plot_name == "search" else rng.choice(
            ["wife", "mother", "father"] if sex == "m" else ["husband", "mother", "father"]),
        "helper": helper_first + (f" {helper_last}" if rng.random() < 0.3 else ""),
        "helper_job": rng.choice(OTHER_JOBS),
        "helper_he": "he" if helper_sex == "m" else "she",
        "visitor": rng.choice(VISITORS),
        "recipient": recipient,
        "recipient_he": recipient_he,
        "recipient_short": recipient_short,
        "other_last": other_last,
        "festival": festival,
        "he": p["he"], "He": p["He"], "his": p["his"], "His": p["His"], "him": p["him"],
        "himself": "himself" if sex == "m" else "herself",
    }
    # Only where the friend is part of the story is a shared memory the friend's; otherwise it is a relative's.
    facts["old_friend"] = friend_first if plot_name in ("return", "search") else f"{p['his']} " + rng.choice(
        ["brother", "sister", "cousin"])
    fill = Filler(rng, facts, V, tidy_en)
    fill.facts["goal"] = plot["goal"]  # said by the hero, so in the first person
    paragraphs = [
        fill.paragraph(BANKS["opening"], rng.randint(4, 5)),
        fill.paragraph(BANKS["town_life"], rng.randint(3, 4)),
        fill.paragraph(BANKS[f"inciting_{plot_name}"], 3),
    ]
    # An urgent errand leaves no evening for brooding; a letter or a stopped clock does.
    if plot_name not in ("delivery", "storm"):
        prepare = fill.pick(BANKS["prepare"], rng.randint(2, 3))
        if plot_name == "return":
            prepare.insert(len(prepare) - 1, fill.one(BANKS["prepare_return"]))
        paragraphs.append(" ".join(prepare))
    paragraphs.append(fill.paragraph(BANKS["journey"], rng.randint(3, 4)))
    meeting = fill.pick(BANKS["meeting"], 5)
    paragraphs.append(meeting[0])
    paragraphs.extend(meeting[1:4])
    paragraphs.append(meeting[4])
    paragraphs.append(fill.paragraph(BANKS["complication"], rng.randint(3, 4)))
    resolution = fill.pick(BANKS[f"resolution_{plot_name}"], 3)
    paragraphs.append(" ".join(resolution[:2]))
    paragraphs.append(resolution[2])
    if plot_name in ("delivery", "repair", "storm"):
        paragraphs.append(fill.paragraph(BANKS["homeward"], rng.randint(2, 3)))
    paragraphs.append(fill.paragraph(BANKS["coda"], rng.randint(3, 4)))
    title = fill.fill(rng.choice(plot["title"]))
    return title, paragraphs
