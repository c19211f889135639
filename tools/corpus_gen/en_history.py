"""Local histories of works, societies and services in (invented) towns."""

from __future__ import annotations

import random

from corpus_gen.en_vocab import V, person, place_name, river_name
from corpus_gen.engine import Filler, parse_banks, tidy_en

# title word, short name, the people in it, what it did, what it produced or offered, whether it made goods
KINDS = [
    ("Paper Mill", "the mill", "workers", "making paper", "paper for ledgers and books", True),
    ("Bell Foundry", "the foundry", "moulders and founders", "casting bells", "church bells and hand bells", True),
    ("Rope Walk", "the rope walk", "ropemakers", "spinning rope", "rope, twine and fishing lines", True),
    ("Printing Works", "the works", "printers and compositors", "printing", "books, posters and railway timetables", True),
    ("Pottery", "the pottery", "potters", "making earthenware", "jugs, bowls and floor tiles", True),
    ("Tannery", "the tannery", "tanners", "tanning hides", "leather for boots and harness", True),
    ("Brewery", "the brewery", "brewers and draymen", "brewing", "ale for the inns of the valley", True),
    ("Glassworks", "the glassworks", "glassblowers", "making glass", "bottles and window glass", True),
    ("Weaving Shed", "the shed", "weavers and tacklers", "weaving cloth", "cotton cloth for the home market", True),
    ("Subscription Library", "the library", "subscribers", "lending books", "books, newspapers and maps", False),
    ("Brass Band", "the band", "bandsmen", "playing music", "concerts in the park and on the quay", False),
    ("Choral Society", "the society", "singers", "singing", "concerts of choral music", False),
    ("Mechanics' Institute", "the institute", "members", "teaching working men and women", "evening classes and lectures", False),
    ("Lifeboat Station", "the station", "crew members", "saving lives at sea", "a lifeboat ready in all weathers", False),
    ("Ferry", "the ferry", "ferrymen", "carrying passengers across the river", "a crossing in every season", False),
    ("Canal", "the canal", "boatmen and lock-keepers", "carrying goods by water", "cheap carriage for coal and grain", False),
    ("Observatory", "the observatory", "astronomers", "observing the sky", "weather records and star charts", False),
    ("Botanic Garden", "the garden", "gardeners", "growing plants from many countries", "collections of trees and herbs", False),
    ("Cottage Hospital", "the hospital", "nurses and doctors", "caring for the sick", "beds for the town and its villages", False),
    ("Museum", "the museum", "curators and volunteers", "collecting and showing objects", "collections of local history", False),
    ("Fire Brigade", "the brigade", "firemen", "fighting fires", "a pump and a team of trained men", False),
    ("Covered Market", "the market", "traders", "trading under one roof", "stalls for butchers, grocers and drapers", False),
]

BANKS = parse_banks("""
== origins_first
The $title {had its beginnings in|grew out of} {a meeting held at the $inn in $year_found|a small venture started in $year_found|the ambitions of a handful of townspeople in $year_found}, when $founder {proposed founding|set about founding} a permanent establishment for $activity in $town.

== origins
{Before then|Until that time}, {$activity in $town had been left to a few people working on their own account|the town's needs had been served, if at all, from $near_city}, and {there was a growing feeling|many believed} that {the town deserved better|a proper establishment was overdue}.
{$founder|Its founder, $founder,} was {A_ $founder_trade by trade|the son of a local $founder_trade}, {known for|remembered for} {his energy and his temper|his careful accounts|his habit of writing long letters to the newspaper}, and {he put much of his own money into the scheme|he persuaded several friends to join him}.
{The first years|The early years} were {difficult|uncertain}: {money was short|there were disputes over the site}, {and at one point the whole enterprise nearly failed|and more than one of the first partners withdrew}.
{The choice of site|The site chosen}, {beside the River $river|on the edge of the town|at the bottom of $street}, was {determined by|governed by} {the need for water|the price of land|the goodwill of the $family family}, and {it proved a good one|it served for more than a century}.
{A list of the first subscribers|The earliest account book}, {kept in a marbled notebook|written in a careful copperplate hand}, {survives in the town museum|is still in the possession of the $family family}, and {shows how small the beginnings were|records sums of a few shillings at a time}.

== building
{The first building was a plain stone structure|The first building was a converted barn|The original premises were a row of cottages knocked together|The original premises were two rooms above a shop}, with {a slate roof|tall windows} and {a yard|a small garden} {at the back|running down to the river}.
{By $year_build a new and larger building had been put up|In $year_build a handsome new hall was opened} {to designs by A_ $near_city architect|on the same site}, {paid for partly by public subscription|with the help of a loan from the bank}.
{Its front|The front}, {of local stone with a carved date stone|in red brick with stone dressings}, {still stands|survives} {on $street|facing the river}, {although|but} {the interior|the inside} {has been altered many times|bears little trace of its first use}.
{Visitors in the 1880s described the building as|A visitor in the 1870s wrote of it as} {"solid, useful and entirely without ornament"|"the pride of the town"|"a credit to the district"}, {which seems fair|a verdict that still seems fair}.

== growth
Under {$manager|the management of $manager}, who {took charge|became secretary} in $year_manager, {$short grew steadily|the enterprise prospered}, and {by the end of the century|within twenty years} {it had become part of the life of the whole town|its name was known well beyond $county}.
{The number of $members|Its membership} {rose|grew} {from a few dozen to several hundred|sharply} {in the decades that followed|as the town itself grew}, and new rules {had to be drawn up|were adopted} {to manage the larger numbers|in $year_manager}.
{The arrival of the railway|The opening of the new road to $near_city} brought {new customers|new opportunities}, and $reach.
{Records from this time|The minute books of the period} {show|reveal} {a busy and confident institution|a lively, argumentative community}, {debating|arguing over} {wages|rules|subscriptions} {and the proper hours of work|and the admission of new members} {at great length|with some heat}.
{New equipment|New methods} {introduced in the 1880s|brought in around 1890} {made the work quicker|changed the daily routine}, {though|but} {some of the older $members|several long-serving $members} {resented the changes|complained that something had been lost}.
{A royal visit|A visit from the Lord Lieutenant} in {1887|1897|1902} {was the high point of these years|was remembered for a generation}, and {a photograph of the occasion|a framed account of the day} {hung in the entrance hall|was kept in the secretary's office} {for many years|until the building closed}.

== work_maker
{A working day|The day} at $short {began|started} {at six in the morning|before dawn|with the ringing of a hand bell at seven}, and {in the busy months|at the height of the season} {it might last twelve hours or more|it often ran on by lamplight into the evening}.
{Each|Every} {stage of the work|part of the process} {had its own skilled hands|belonged to a particular group of $members}, {and apprentices spent years|and a newcomer might spend years} {learning one task thoroughly|before being trusted with the finer work}.
The tools {were simple but well made|changed little for generations}, and {many were made or mended on the premises|some of them survive in the town museum}, {worn smooth by use|marked with the initials of their owners}.
{Noise|The sound of the work} {was a constant companion|could be heard across the town}, and {people living nearby|older residents} {say they could tell the time of day by it|remember it as the background to their childhood}.
{Quality|Good workmanship} {was a matter of pride|was jealously guarded}, and {anything that fell short|work that was not up to standard} {was broken up and started again|was sold off cheaply at the gate}.
Wages were {modest|never high}, but {the work was steady|employment was regular}, and in {hard years|bad winters} $short kept on its $members when {other employers laid men off|others could not}.

== work_service
{Most of the work|The daily round} at $short was done by {a handful of paid staff|a small paid staff} and {a larger number of volunteers|many willing helpers}, and {the rota was pinned up by the door every Monday|the duty list was kept in a book by the door}.
The first rules, {printed on a card|written out in a fair hand}, {set out|laid down} {who could belong|the hours of opening} and {what each person owed|the fines for lateness}, and {a copy still survives|one copy has survived} {in the town museum|among the papers of the $family family}.
{Money|Funds} {came from|was raised by} {subscriptions and collections|concerts, bazaars and an annual dinner}, and {the treasurer's accounts show how carefully every penny was spent|the accounts record every shilling received}.
Winter was always the busiest season, and in hard years $short {kept going|stayed open} when {much else in the town had stopped|other concerns closed their doors}.
{A notice board|The notice board} {outside|at the door} {announced|listed} {meetings, changes of hours and the names of new members|the events of the coming month}, and {people stopped to read it|passers-by would stop to read it} on their way to market.

== community
$short was always more than its {work|official purpose}: it {ran a sick club|kept a savings fund|held a summer fête}, and its {annual outing|summer excursion} {to the coast|by train to $near_city} was {the event of the year|remembered for decades}.
{At Christmas|On feast days} {the yard was swept|the rooms were cleared} and {tables were set out|a supper was held} {for the $members and their families|for everyone connected with the place}, {with music that went on late into the night|with speeches from the secretary and the oldest member}.
{The town's|$town's} {newspaper|weekly paper} {reported|followed} {its affairs|every change at $short} {closely|with interest}, and {its fortunes were discussed in every shop and inn|news of good or bad years was talked over on every street corner}.
{Many|A number of} {local people|townspeople} {with no direct connection|who never set foot inside} {still speak of $short as|still refer to $short as} {"ours"|part of the town}, {which says a good deal about its place in local life|a sign of how deeply it was woven into the place}.

== people_first
Among the best remembered of those connected with $short was $person, who {served for more than forty years|joined as a young $person_youth and stayed until retirement}, and {whose memories were written down|whose notebooks were collected} {by a local historian in the 1950s|by a schoolteacher shortly before $person_he died}.

== people
$person_first {recalled|remembered} {the long hours|the cold of winter mornings|the early starts}, but also {the friendships|the sense of pride}, {and the outings to the coast each summer|and the suppers held every Christmas}.
Women played a larger part {in the work of $short|in its life} {than the official records suggest|than is often realised}: they {kept the accounts|did much of the day-to-day work|raised money at bazaars and fêtes}, {often without pay|usually without recognition}.
Several families gave $short three or four generations of $members, and {the same surnames appear in its records from beginning to end|names such as $surname_a and $surname_b recur in the records for a hundred years}.
{A portrait of $founder|A photograph of $founder} {still hangs|hangs to this day} {in the town hall|in the public library}, {showing|and shows} {a stern figure in a high collar|a man in his best coat, looking rather uncomfortable}.

== trouble
{The winter of $year_trouble brought disaster: {a fire broke out|the River $river flooded} one night in {December|January}|In $year_trouble disaster struck: {a fire broke out|a severe storm struck} in the early hours of A_ $month morning}, and {much of the building was destroyed|the damage took a year to repair}.
{The years between the wars|The 1920s and 1930s} were {hard|a lean time}, {as money grew short|as people drifted to other pursuits}, and {$short survived|the enterprise survived} {only through economies|only because a few people refused to let it close}.
{During the war|In the war years} {many of the $members left|the younger men went away} {to serve in the forces|to work elsewhere}, and {the work was carried on by the old and the very young|$short was kept going by a handful of women and retired men}.
{Competition from larger concerns|Changing times|Falling numbers} {in the 1950s and 1960s|after the war} {made it increasingly difficult to carry on|brought a slow decline}, {and in $year_close $short closed its doors|until, in $year_close, the decision was taken to close}.

== today
Today {the building is used as|the old premises serve as} {a community centre|flats|a heritage centre|workshops for local craftspeople}, and {a small display tells its story|a plaque by the door recalls its history}.
{In the 1990s|More recently} {a group of volunteers|a local trust} {revived|restored} {the name of $short|part of the old building}, and open days {are now held|take place} {on summer weekends|several times a year}, {drawing visitors from across $county|which are popular with schools}.
{The history of $short|Its story} {is in many ways the history of $town itself|reflects the fortunes of the town}: {a long period of growth|a confident beginning}, {a slow decline|hard times in the middle of the twentieth century}, and {a new life as a place of memory|a careful revival}.
{Its papers|Its records}, {including minute books, accounts and photographs|from account books to posters}, {are kept|are now preserved} {in the county record office|at the town museum}, {where they are consulted by family historians|and are a valuable source for historians of the region}.
{Each year|Every summer} {a small group of former $members|a few old friends of $short} {meets|gather} {at the $inn|by the old gate} to {remember|talk over} {the old days|the people they worked beside}, {though their numbers grow smaller|a custom that has lasted more than thirty years}.
""")


def document(rng: random.Random) -> tuple[str, list[str]]:
    inst, short, members, activity, product, makes_goods = rng.choice(KINDS)
    town = place_name(rng)
    f_first, f_last, _ = person(rng, "m")
    m_first, m_last, _ = person(rng, "m")
    p_first, p_last, p_sex = person(rng)
    year_found = rng.randint(1760, 1880)
    facts = {
        "title": f"{town} {inst}", "short": short, "members": members, "activity": activity,
        "town": town, "county": place_name(rng), "near_city": place_name(rng), "river": river_name(rng),
        "street": rng.choice(V["street"]), "family": rng.choice(V["surname"]),
        "inn": rng.choice(["Red Lion", "George Hotel", "Swan", "Bell", "King's Head", "White Hart", "Crown"]),
        "founder": f"{f_first} {f_last}", "founder_trade": rng.choice(["draper", "miller", "solicitor", "brewer", "printer", "grocer", "doctor"]),
        "manager": f"{m_first} {m_last}", "person": f"{p_first} {p_last}", "person_first": p_first,
        "person_he": "he" if p_sex == "m" else "she", "person_youth": "man" if p_sex == "m" else "woman",
        "year_found": str(year_found), "year_build": str(year_found + rng.randint(8, 40)),
        "year_manager": str(year_found + rng.randint(15, 50)), "year_trouble": str(rng.randint(1890, 1935)),
        "year_close": str(rng.randint(1958, 1989)), "month": rng.choice(V["month"]),
        # How the enterprise's reach grew: goods go out to other towns, services draw people in.
        "reach": (f"before long $short was sending {product} to towns across $county" if makes_goods
                  else "$short began to draw people from across $county"),
    }
    facts["surname_a"], facts["surname_b"] = rng.sample(V["surname"], 2)
    fill = Filler(rng, facts, V, tidy_en)
    work = "work_maker" if makes_goods else "work_service"
    # Each bank is written in story order, so it gives one paragraph: a second paragraph from the same bank
    # would hold what the first left over, out of order.
    paragraphs = [" ".join([fill.one(BANKS["origins_first"])] + fill.pick(BANKS["origins"], rng.randint(3, 5)))]
    for bank, (lo, hi) in [("building", (3, 4)), (work, (4, 5)), ("growth", (4, 6)), ("people", (2, 4)),
                           ("community", (3, 4)), ("trouble", (3, 4)), ("today", (3, 5))]:
        first = fill.pick(BANKS["people_first"], 1) if bank == "people" else []  # introduces the person
        text = " ".join(first + fill.pick(BANKS[bank], rng.randint(lo, hi)))
        if text.count(". ") >= 1:  # a paragraph of at least two sentences
            paragraphs.append(text)
    return f"The {facts['title']}", paragraphs
