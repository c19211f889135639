"""Reflective essays on ordinary pursuits and places."""

from __future__ import annotations

import random

from corpus_gen.en_vocab import V, person, place_name, river_name
from corpus_gen.engine import Filler, parse_banks, tidy_en

# name, gerund (an activity: "I came to $gerund late"), doers, things, place (a bare noun phrase), where (the
# place with its preposition), object
TOPICS = [
    ("walking", "walking", "walkers", "paths, stiles and field gates", "a lane between hedges", "in a lane between hedges", "a good pair of boots"),
    ("old maps", "reading old maps", "map readers", "contour lines, parish boundaries and forgotten footpaths", "a library reading room", "in a library reading room", "a folded map"),
    ("kitchens", "cooking for other people", "cooks", "pans, knives and jars of preserves", "a warm kitchen", "in a warm kitchen", "a heavy iron pan"),
    ("letters", "writing letters", "letter writers", "envelopes, stamps and good paper", "a writing desk", "at a writing desk", "a fountain pen"),
    ("gardens", "gardening", "gardeners", "seedlings, compost heaps and string lines", "a walled vegetable garden", "in a walled vegetable garden", "a spade with a worn handle"),
    ("rain", "walking in the rain", "walkers who do not mind the rain", "puddles, gutters and wet slates", "a street after a shower", "in a street after a shower", "an old raincoat"),
    ("libraries", "spending afternoons in libraries", "readers", "shelves, catalogues and worn chairs", "a small public library", "in a small public library", "a borrowed book"),
    ("bicycles", "cycling", "cyclists", "chains, spokes and country lanes", "a long hill with a view at the top", "on a long hill with a view at the top", "an old bicycle"),
    ("bridges", "looking at bridges", "engineers and idlers", "arches, piers and parapets", "an old stone bridge", "on an old stone bridge", "a stone parapet warmed by the sun"),
    ("handwriting", "writing by hand", "those who write by hand", "notebooks, margins and crossed-out words", "a kitchen table covered with paper", "at a kitchen table covered with paper", "a pencil"),
    ("markets", "going to markets", "market traders", "stalls, scales and striped awnings", "a market square", "in a market square", "a string bag"),
    ("winter walks", "walking in winter", "winter walkers", "frost, early dusk and wood smoke", "a field white with frost", "in a field white with frost", "a thick scarf"),
    ("trains", "travelling by slow train", "passengers", "timetables, platforms and branch lines", "a country station", "at a country station", "a window seat"),
    ("clocks", "keeping clocks", "clockmakers", "pendulums, springs and winding keys", "a workshop full of ticking", "in a workshop full of ticking", "a pocket watch"),
    ("swimming", "swimming outdoors", "swimmers", "cold water, river pools and stony beaches", "a river pool under alders", "at a river pool under alders", "a towel"),
    ("mending", "mending things", "menders", "glue, solder, thread and patience", "a shed with a vice and a bench", "in a shed with a vice and a bench", "a box of screws"),
    ("lighthouses", "visiting lighthouses", "keepers and visitors", "lamps, spiral stairs and fog signals", "a windy headland", "on a windy headland", "a pair of binoculars"),
    ("bread", "baking bread", "bakers", "flour, starter and a hot oven", "a small kitchen", "in a small kitchen", "a wooden bowl"),
    ("rivers", "following a river", "anglers and walkers", "weirs, fords and water meadows", "a river bank", "on a river bank", "a walking stick"),
    ("sketching", "drawing outdoors", "sketchers", "pencils, erasers and small notebooks", "a bench facing an old church", "on a bench facing an old church", "a sketchbook"),
    ("music at home", "playing music at home", "amateur musicians", "scales, sheet music and tuning forks", "a front room with an upright piano", "in a front room with an upright piano", "a music stand"),
    ("allotments", "keeping an allotment", "allotment holders", "sheds, water butts and rows of beans", "an allotment", "on an allotment", "a watering can"),
    ("night skies", "looking at the night sky", "stargazers", "constellations, planets and the moon", "a dark field away from town", "in a dark field away from town", "a star chart"),
    ("second-hand books", "buying second-hand books", "book hunters", "inscriptions, bookplates and foxed pages", "a bookshop with a creaking floor", "in a bookshop with a creaking floor", "a paperback with a name on the flyleaf"),
]

BANKS = parse_banks("""
== opening
{When I was a child|Years ago}, $relative {used to say|liked to say} that {$gerund was a way of paying attention|there was no such thing as time wasted on $gerund|$gerund taught you more than any school}, and {I did not understand $pronoun_him at the time|it has taken me most of my life to see what $pronoun_he meant}.
I {came to $gerund late|did not come to $gerund by choice}, {in a year when not much else was going well|when a long illness left me with time on my hands|because a friend needed help one summer}, and {it has stayed with me ever since|I have never quite given it up}.
{There is a particular kind of|Everyone who has tried it knows the} {quiet|pleasure|satisfaction} that {belongs to|comes with} $gerund, and it is {hard to describe to anyone who has not felt it|not easy to put into words}.
{It is easy to be sentimental about|People are often sentimental about} $name, and {I will try not to be|I want to avoid that here}; {what interests me is something plainer|what I want to write about is more ordinary}.
{Last $season|One afternoon last $season}, {in $town|on a visit to $town}, I {found myself|spent an hour} $where, {and it started me thinking|and a small thing happened there that set this essay going}.

== scene
{Picture|Think of} $place {on an ordinary weekday|early on A_ $season morning}: {nothing much is happening, and that is exactly its charm|the light is coming in low, and the only sound is @sound}.
{I know a particular corner of $town where I go|There is one place near $town that I return to} more often than anywhere else, and {over the years it has become|with time it has turned into} {a kind of second home|a private landmark}.
{The smell of @smell|A smell of @smell}, {the feel of $object in the hand|the weight of $object}, {the particular quality of the light|the way the light falls}: {these are the things I think of first when someone mentions $gerund|these are what come back to me when I think of $gerund}.
{In bad weather|On grey days} $place {is hardly inviting|looks dreary enough}, {and yet|but} {some of my best hours|several of my happiest afternoons} {have been spent there|were spent there} {in the rain|under a low sky}.

== claim
{The first thing|What} $gerund {teaches|asks of you} is {patience|attention}: {nothing can be hurried|the work goes at its own pace}, and {the attempt to hurry it|impatience} {usually spoils|nearly always undoes} {the result|everything}.
{It seems to me|I have come to think} that $gerund is {less about $things than about|not really about $things but about} {a certain way of looking|the kind of attention we give to the world}.
{We tend to think|It is usual to think} of $gerund as {a hobby|a pastime|a small private pleasure}, but {for most of history|until recently} {it was simply part of ordinary life|it was a necessity rather than a choice}, {and something of that seriousness remains|and I think it still carries some of that weight}.
The pleasures of $gerund {are not dramatic|are small ones}: {the right tool|$object}, {a good morning's work|an hour without interruption}, {the sense of having done one thing properly|the feeling of being, for once, in the right place}.
{Part of the appeal|Some of the pleasure}, {I suspect|I think}, is that $gerund {cannot be done on a screen|resists being done faster|does not improve with more equipment}; {it needs hands and time|it asks for the body as much as the mind}.
{What|The thing} I {value|like} most about $gerund is {how it changes the scale of things|the way it slows the day down}: {a morning becomes long again|small differences start to matter}, and {the world seems larger|one notices what was always there}.

== history
{For centuries|Long before it became a pastime}, $doers {had their own|kept their own} {words|customs|rules of thumb}, {handed down from one generation to the next|learned by watching rather than reading}, and {many of them are still in use|a few survive in odd corners}.
{In the nineteenth century|A hundred years ago}, {whole books were written|there were magazines} about $name, {full of advice that now seems quaint|earnest and rather solemn}, {and I have a shelf of them at home|and I still like to read them}.
{An old handbook I once bought|A little book from the 1920s} {tells its readers|advises} that {the most important thing is to begin|one should never be ashamed of a poor beginning|the best $doers are those who keep notes}, {which is still good advice|which I have never found a reason to disagree with}.
{It is worth remembering|We forget} that {ordinary people|most people} {did not write down|seldom recorded} {what they knew about|their experience of} $name, {so that most of what was known has been lost|and so the history we have is mostly the history of the few who did}.

== personal
I remember one day clearly: {a cold morning|a long evening in $month} in $town, {$object in my hand|$object beside me}, and {the feeling that everything was in its right place|a rare sense of having nowhere else to be}.
{My first attempts were not a success|The first year went badly}: {I bought the wrong things|I made every mistake there is to make}, {and more than once I nearly gave up|and a kind neighbour had to rescue me more than once}.
{A friend|My friend $friend}, who has {kept at|loved} $gerund {for forty years|since childhood}, {once told me|likes to say} that {the trick is to do a little every day|you learn nothing from the good days}; {I have found that to be true|it sounds simple and is not}.
{Over the years|Gradually} I have {learned|come to understand} {which mistakes matter|what not to worry about}, and {that has been worth more than any skill|that knowledge is most of what I have to show}.
There was {a summer|a year} when {I did little else|$gerund was the only steady thing in my life}, {and I think it kept me sane|and I am still grateful for it}.

== others
{The people|Those} {I have met|I have come to know} {through|because of} $gerund {are|have been} {a varied lot|of every age and sort}: {retired teachers and young parents|a bus driver, a retired nurse and a student}, {bound together by|sharing} {nothing but|little beyond} {this one interest|a single enthusiasm}.
{Most $doers are modest about what they do, and they are generous with advice if you ask|The best $doers I know are quiet about their skill, and are always ready to lend a hand when asked}.
{An old man I used to meet in $town had kept at $gerund for sixty years, and still talked about it as if he had only just begun|A woman I often saw in $town had been at it since before the war, yet still spoke of it with the eagerness of a beginner}.
{Beginners|Newcomers} {are often|are usually} {afraid of looking foolish|anxious to get everything right at once}, {but the older hands|but those with long experience} {are|tend to be} {the first to admit|quick to confess} {how much they still get wrong|their own early disasters}.

== counter
{Of course|Naturally}, {not everyone sees it this way|there are objections}. $critic {thinks $gerund is a waste of time|finds the whole business tedious}, and {I can see $critic_his point|$critic_he is not entirely wrong}.
It would be {dishonest|wrong} to pretend that $gerund is {always pleasant|never frustrating}: {there are days of boredom|there are cold, wet, failed days}, {and some of them are long|when nothing goes right}.
{There is also|There is} {a kind of snobbery|a certain smugness} {that gathers around|that can attach itself to} $name, {and I have been guilty of it|which I would like to avoid}; {nothing is better simply because it is slow|a pastime is not more admirable simply because it is old-fashioned}.

== modern
{Nowadays|These days}, {when so much of life happens on screens|when everything is expected to be quick}, $gerund can look like {an indulgence|a form of stubbornness}, {and perhaps it is one|and in a way it is}.
{Yet|And yet} {more people seem to be taking it up|I notice more young people at it than before}, {which suggests|and I take this as a sign} that {something in it answers a need|it offers something the rest of the day does not}.
There are now {clubs and courses for $doers in most towns|websites and magazines for $doers}, {and I am glad of them|which would have astonished my grandfather}, {though|but} {the best teacher is still experience|I still think it is best learned alone, by trial and error}.

== closing
{In the end|Finally}, {I do not think|I doubt} {that $gerund needs a defence|that any of this needs justifying}. It is {enough|reason enough} that {it gives pleasure and harms no one|some of us are happier for it, and that it asks very little of the world}.
{Tomorrow|This evening}, {if the weather holds|weather permitting}, {I will go out again|I shall be at it again}, {with $object, and I expect to learn something|$where, with no particular aim}; {that, after all, is the point|that is rather the point}.
If I have learned anything, it is this: {$gerund is never quite finished|there is always more to see}, and {that is its great consolation|I find that a comfort rather than a burden}.
""")

PLAN = [("opening", (2, 4)), ("scene", (2, 3)), ("claim", (2, 3)), ("history", (2, 4)), ("personal", (2, 3)),
        ("others", (2, 4)), ("claim", (2, 3)), ("counter", (2, 3)), ("modern", (2, 3)), ("personal", (2, 3)),
        ("closing", (2, 3))]


def document(rng: random.Random) -> tuple[str, list[str]]:
    name, gerund, doers, things, place, where, obj = rng.choice(TOPICS)
    friend, _, _ = person(rng)
    relative_sex = rng.choice("mf")
    critic_sex = rng.choice("mf")
    facts = {
        "name": name, "gerund": gerund, "doers": doers, "things": things, "place": place, "where": where,
        "object": obj, "friend": friend, "town": place_name(rng), "river": river_name(rng),
        "season": rng.choice(V["season"]), "month": rng.choice(V["month"]),
        "relative": rng.choice(["my grandfather", "an uncle of mine", "an old neighbour of ours"]
                               if relative_sex == "m" else ["my grandmother", "an aunt of mine", "my mother"]),
        "pronoun_he": "he" if relative_sex == "m" else "she",
        "pronoun_him": "him" if relative_sex == "m" else "her",
        "critic": rng.choice(["a friend of mine", "one of my colleagues", "my brother" if critic_sex == "m" else "my sister"]),
        "critic_he": "he" if critic_sex == "m" else "she",
        "critic_his": "his" if critic_sex == "m" else "her",
    }
    fill = Filler(rng, facts, V, tidy_en)
    paragraphs = []
    for bank, (lo, hi) in PLAN:
        text = fill.paragraph(BANKS[bank], rng.randint(lo, hi))
        if text:
            paragraphs.append(text)
    title = rng.choice([f"On {name}", f"In praise of {name}", f"Some thoughts on {name}",
                        f"{name[0].upper() + name[1:]}: an essay", f"A note on {gerund}"])
    return title, paragraphs
