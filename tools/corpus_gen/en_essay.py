"""Reflective essays on ordinary pursuits and places."""

from __future__ import annotations

import random

from corpus_gen.en_vocab import V, person, place_name, river_name
from corpus_gen.engine import Filler, parse_banks, tidy_en

# name, gerund (subject form), doers, things, place, object, verb (base form)
TOPICS = [
    ("walking", "walking", "walkers", "paths, stiles and field gates", "a lane between hedges", "a good pair of boots", "walk"),
    ("old maps", "reading old maps", "map readers", "contour lines, parish boundaries and forgotten footpaths", "a library reading room", "a folded map", "read a map"),
    ("kitchens", "cooking for other people", "cooks", "pans, knives and jars of preserves", "a warm kitchen", "a heavy iron pan", "cook"),
    ("letters", "writing letters", "letter writers", "envelopes, stamps and good paper", "a writing desk", "a fountain pen", "write a letter"),
    ("gardens", "gardening", "gardeners", "seedlings, compost heaps and string lines", "a walled vegetable garden", "a spade with a worn handle", "garden"),
    ("rain", "walking in the rain", "people who do not own umbrellas", "puddles, gutters and wet slates", "a street after a shower", "an old raincoat", "go out in the rain"),
    ("libraries", "spending afternoons in libraries", "readers", "shelves, catalogues and worn chairs", "a small public library", "a borrowed book", "read"),
    ("bicycles", "cycling", "cyclists", "chains, spokes and country lanes", "a long hill with a view at the top", "an old bicycle", "cycle"),
    ("bridges", "looking at bridges", "engineers and idlers", "arches, piers and parapets", "the middle of an old bridge", "a stone parapet warmed by the sun", "cross a river"),
    ("handwriting", "writing by hand", "people who still write by hand", "notebooks, margins and crossed-out words", "a kitchen table covered with paper", "a pencil", "write by hand"),
    ("markets", "going to markets", "market traders", "stalls, scales and striped awnings", "a market square on a Saturday", "a string bag", "shop at a market"),
    ("winter", "the first weeks of winter", "people who like the cold", "frost, early dusk and wood smoke", "a field white with frost", "a thick scarf", "wrap up warm"),
    ("trains", "travelling by slow train", "passengers", "timetables, platforms and branch lines", "a country station", "a window seat", "travel by train"),
    ("clocks", "keeping clocks", "clockmakers", "pendulums, springs and winding keys", "a workshop full of ticking", "a pocket watch", "wind a clock"),
    ("swimming", "swimming outdoors", "swimmers", "cold water, river pools and stony beaches", "a river pool under alders", "a towel", "swim"),
    ("repair", "mending things", "menders", "glue, solder, thread and patience", "a shed with a vice and a bench", "a box of screws", "mend things"),
    ("lighthouses", "visiting lighthouses", "keepers and visitors", "lamps, spiral stairs and fog signals", "a headland at dusk", "a pair of binoculars", "watch the sea"),
    ("bread", "baking bread", "bakers", "flour, starter and a hot oven", "a kitchen before dawn", "a wooden bowl", "bake"),
    ("rivers", "following a river", "anglers and walkers", "weirs, fords and water meadows", "a river bank in the evening", "a walking stick", "follow a river"),
    ("sketching", "drawing outdoors", "sketchers", "pencils, erasers and small notebooks", "a bench facing an old church", "a sketchbook", "draw"),
    ("music at home", "playing music at home", "amateur musicians", "scales, sheet music and tuning forks", "a front room with an upright piano", "a music stand", "play an instrument"),
    ("allotments", "keeping an allotment", "allotment holders", "sheds, water butts and rows of beans", "an allotment on a summer evening", "a watering can", "grow vegetables"),
    ("night skies", "looking at the night sky", "stargazers", "constellations, planets and the moon", "a dark field away from town", "a star chart", "watch the stars"),
    ("second-hand books", "buying second-hand books", "book hunters", "inscriptions, bookplates and foxed pages", "a bookshop with a creaking floor", "a paperback with a name on the flyleaf", "browse"),
]

BANKS = parse_banks("""
== opening
{When I was a child|Years ago|The first time I thought about it}, $relative {used to say|liked to say|once told me} that {$gerund was a way of paying attention|there was no such thing as wasted time spent on $name|$gerund taught you more than any school}, and {I did not understand $pronoun_him at the time|it has taken me most of my life to see what $pronoun_he meant}.
I {came to $gerund late|did not come to $gerund by choice}, {in a year when not much else was going well|when a long illness left me with time on my hands|because a friend needed help one summer}, and {it has stayed with me ever since|I have never quite given it up}.
{There is a particular kind of|Everyone who has tried it knows the} {quiet|pleasure|satisfaction} that {belongs to|comes with} $gerund, and it is {hard to describe to anyone who has not felt it|not easy to put into words}.
{It is easy to be sentimental about|People are often sentimental about} $name, and {I will try not to be|I want to avoid that here}; {what interests me is something plainer|what I want to write about is more ordinary}.
{Last $season|One afternoon last $season}, {in $town|on a visit to $town}, I {found myself|spent an hour} {at|in} $place, {and it started me thinking|and a small thing happened there that set this essay going}.

== claim
{The first thing|What} $gerund {teaches|asks of you} is {patience|attention}: {nothing can be hurried|the work goes at its own pace}, and {the attempt to hurry it|impatience} {usually spoils|nearly always undoes} {the result|everything}.
{It seems to me|I have come to think} that $gerund is {less about $things than about|not really about $things but about} {a certain way of looking|the kind of attention we give to the world}.
{We tend to think|It is usual to think} of $gerund as {a hobby|a pastime|a small private pleasure}, but {for most of history|until recently} {it was simply part of ordinary life|it was a necessity rather than a choice}, {and something of that seriousness remains|and I think it still carries some of that weight}.
The pleasures of $gerund {are not dramatic|are small ones}: {the right tool|$object}, {a good morning's work|an hour without interruption}, {the sense of having done one thing properly|the feeling of being, for once, in the right place}.
{Part of the appeal|Some of the pleasure}, {I suspect|I think}, is that $gerund {cannot be done on a screen|resists being done faster|does not improve with more equipment}; {it needs hands and time|it asks for the body as much as the mind}.
{What|The thing} I {value|like} most about $gerund is {how it changes the scale of things|the way it slows the day down}: {a morning becomes long again|small differences start to matter}, and {the world seems larger|one notices what was always there}.

== history
{For centuries|Long before it became a pastime}, $doers {had their own|kept their own} {words|customs|rules of thumb}, {handed down from one generation to the next|learned by watching rather than reading}, and {many of them are still in use|a few survive in odd corners}.
{In the nineteenth century|A hundred years ago}, {there were societies and magazines devoted to|whole books were written about} $name, {full of advice that now seems quaint|earnest and rather solemn}, {and I have a shelf of them at home|and I still like to read them}.
{An old handbook I once bought|A little book from the 1920s} {tells its readers|advises} that {the most important thing is to begin|one should never be ashamed of a poor beginning|the best $doers are those who keep notes}, {which is still good advice|which I have never found a reason to disagree with}.
{It is worth remembering|We forget} that {ordinary people|most people} {did not write down|seldom recorded} {what they knew about|their experience of} $name, {so that most of what was known has been lost|and so the history we have is mostly the history of the few who did}.

== personal
{I remember one day clearly|One morning stays with me}: {a cold morning|a long evening in $month} in $town, {$object in my hand|with $object beside me}, and {the feeling that everything was in its right place|a rare sense of having nowhere else to be}.
{My first attempts|The first year} {were not a success|went badly}: {I bought the wrong things|I made every mistake there is to make}, {and more than once I nearly gave up|and a kind neighbour had to rescue me more than once}.
{A friend|My friend $friend}, who has {kept at|loved} $gerund {for forty years|since childhood}, {once told me|likes to say} that {the trick is to do a little every day|you learn nothing from the good days}; {I have found the second half of that to be true|it sounds simple and is not}.
{Over the years|Gradually} I have {learned|come to understand} {which mistakes matter|what not to worry about}, and {that has been worth more than any skill|that knowledge is most of what I have to show}.
{There was a summer|There was a year} when {I did little else|$gerund was the only steady thing in my life}, {and I think it kept me sane|and I am still grateful for it}.

== scene
{Picture|Think of} $place {on an ordinary weekday|early on a $season morning}: {nothing much is happening|the light is coming in low}, {and that is exactly its charm|and the only sound is @sound}.
{I know|There is} {a particular|one} {corner of $town|place near $town} {where I go|that I return to} {more often than anywhere else|again and again}, {and over the years|and with time} {it has become|it has turned into} {a kind of second home|a private landmark}.
{The smell of @smell|A smell of @smell}, {the feel of $object in the hand|the weight of $object}, {the particular quality of the light|the way the light falls}: {these are the things|these are what} {I think of first|come back to me} {when I think of $gerund|when someone mentions $gerund}.
{In bad weather|On grey days} {the place|$place} {is hardly inviting|looks dreary enough}, {and yet|but} {some of my best hours|several of my happiest afternoons} {have been spent there|were spent there} {in the rain|under a low sky}.
{There is an order to|Everything has its place in} $place: {$things|the tools of the trade}, {each in its spot|all arranged by long habit}, {so that a stranger|in a way that a newcomer} {would find it confusing|might not notice at all}.

== others
{The people|Those} {I have met|I have come to know} {through $gerund|because of $gerund} {are|have been} {a varied lot|of every age and sort}: {retired teachers and young parents|a bus driver, a retired nurse and a student}, {bound together by|sharing} {nothing but|little beyond} {this one interest|a single enthusiasm}.
{Most $doers|The best $doers I know} {are|tend to be} {modest|quiet} {about what they do|about their skill}, {and they are generous|and are always ready} {with advice|to lend a hand} {if you ask|when asked}.
{An old man I used to meet|A woman I often saw} {at $place|in $town} {had been at it|had kept at $gerund} {for sixty years|since before the war}, {and still|yet still} {talked about it|spoke of it} {as if he had only just begun|with the eagerness of a beginner}.
{Beginners|Newcomers} {are often|are usually} {afraid of looking foolish|anxious to get everything right at once}, {but the older hands|but those with long experience} {are|tend to be} {the first to admit|quick to confess} {how much they still get wrong|their own early disasters}.

== counter
{Of course|Naturally}, {not everyone sees it this way|there are objections}. {A friend of mine|One of my colleagues} {thinks $gerund is a waste of time|finds the whole business tedious}, and {I can see $pronoun_his point|$pronoun_he is not entirely wrong}.
{It would be dishonest|It would be wrong} to pretend that $gerund is {always pleasant|never frustrating}: {there are days of boredom|there are cold, wet, failed days}, {and some of them are long|when nothing goes right}.
{There is also|There is} {a kind of snobbery|a certain smugness} {that gathers around|that can attach itself to} $name, {and I have been guilty of it|which I would like to avoid}; {nothing is better simply because it is slow|a pastime is not more admirable simply because it is old-fashioned}.

== modern
{Nowadays|These days}, {when so much of life happens on screens|when everything is expected to be quick}, $gerund can look like {an indulgence|a form of stubbornness}, {and perhaps it is one|and in a way it is}.
{Yet|And yet} {more people seem to be taking it up|I notice more young people at it than before}, {which suggests|and I take this as a sign} that {something in it answers a need|it offers something the rest of the day does not}.
{There are now|There are} {clubs|courses|websites} {for|devoted to} $name {in|across} {most towns|the country}, {and I am glad of them|which would have astonished my grandfather}, {though|but} {the best teacher is still experience|I still think it is best learned alone, by trial and error}.

== closing
{In the end|Finally}, {I do not think|I doubt} {that $gerund needs a defence|that any of this needs justifying}. It is {enough|reason enough} that {it gives pleasure and harms no one|some of us are happier for it, and that it asks very little of the world}.
{Tomorrow|This evening}, {if the weather holds|weather permitting}, {I will go out again|I shall be at it again}, {with $object|to $place}, {and I expect to learn something|with no particular aim}; {that, after all, is the point|that is rather the point}.
{Whatever else changes|If I have learned anything}, {it is this|it is that}: {$gerund is never quite finished|there is always more to see}, {and that is its great consolation|and I find that a comfort rather than a burden}.
""")


def document(rng: random.Random) -> tuple[str, list[str]]:
    name, gerund, doers, things, place, obj, verb = rng.choice(TOPICS)
    friend, _, _ = person(rng)
    relative_sex = rng.choice("mf")
    facts = {
        "name": name, "gerund": gerund, "doers": doers, "things": things, "place": place, "object": obj,
        "verb": verb, "friend": friend, "town": place_name(rng), "river": river_name(rng),
        "season": rng.choice(V["season"]), "month": rng.choice(V["month"]),
        "relative": rng.choice(["my grandfather", "an uncle of mine", "an old neighbour of ours"]
                               if relative_sex == "m" else ["my grandmother", "an aunt of mine", "my mother"]),
        "pronoun_he": "he" if relative_sex == "m" else "she",
        "pronoun_him": "him" if relative_sex == "m" else "her",
        "pronoun_his": "his" if relative_sex == "m" else "her",
    }
    fill = Filler(rng, facts, V, tidy_en)
    plan = ["opening", "scene", "claim", "history", "personal", "others", "claim", "counter", "modern", "personal",
            "closing"]
    paragraphs = []
    for bank in plan:
        paragraphs.append(" ".join(fill.pick(BANKS[bank], rng.randint(2, 4))))
    title = rng.choice([f"On {name}", f"In praise of {name}", f"Some thoughts on {name}",
                        f"{name[0].upper() + name[1:]}: an essay", f"A note on {gerund}"])
    return title, paragraphs
