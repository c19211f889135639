"""Local histories of works, societies and services in (invented) towns."""

from __future__ import annotations

import random

from corpus_gen.en_vocab import V, person, place_name, river_name
from corpus_gen.engine import Filler, parse_banks, tidy_en

# title word, short name, the people in it, what it did, what it produced or offered
KINDS = [
    ("Paper Mill", "the mill", "workers", "making paper", "paper for ledgers and books"),
    ("Bell Foundry", "the foundry", "moulders and founders", "casting bells", "church bells and hand bells"),
    ("Rope Walk", "the rope walk", "ropemakers", "spinning rope", "rope, twine and fishing lines"),
    ("Printing Works", "the works", "printers and compositors", "printing", "books, posters and railway timetables"),
    ("Pottery", "the pottery", "potters", "making earthenware", "jugs, bowls and floor tiles"),
    ("Tannery", "the tannery", "tanners", "tanning hides", "leather for boots and harness"),
    ("Brewery", "the brewery", "brewers and draymen", "brewing", "ale for the inns of the valley"),
    ("Glassworks", "the glassworks", "glassblowers", "making glass", "bottles and window glass"),
    ("Subscription Library", "the library", "subscribers", "lending books", "books, newspapers and maps"),
    ("Brass Band", "the band", "bandsmen", "playing music", "concerts in the park and on the quay"),
    ("Choral Society", "the society", "singers", "singing", "concerts of choral music"),
    ("Mechanics' Institute", "the institute", "members", "teaching working men and women", "evening classes and lectures"),
    ("Lifeboat Station", "the station", "crew members", "saving lives at sea", "a lifeboat ready in all weathers"),
    ("Ferry", "the ferry", "ferrymen", "carrying passengers across the river", "a crossing in every season"),
    ("Canal", "the canal", "boatmen and lock-keepers", "carrying goods by water", "cheap carriage for coal and grain"),
    ("Observatory", "the observatory", "astronomers", "observing the sky", "weather records and star charts"),
    ("Botanic Garden", "the garden", "gardeners", "growing plants from many countries", "collections of trees and herbs"),
    ("Cottage Hospital", "the hospital", "nurses and doctors", "caring for the sick", "beds for the town and its villages"),
    ("Museum", "the museum", "curators and volunteers", "collecting and showing objects", "collections of local history"),
    ("Fire Brigade", "the brigade", "firemen", "fighting fires", "a pump and a team of trained men"),
    ("Covered Market", "the market", "traders", "trading under one roof", "stalls for butchers, grocers and drapers"),
    ("Weaving Shed", "the shed", "weavers and tacklers", "weaving cloth", "cotton cloth for the home market"),
]

BANKS = parse_banks("""
== origins
The $title {had its beginnings in|grew out of} {a meeting held at the $inn in $year_found|a small venture started in $year_found|the ambitions of a handful of townspeople in $year_found}, when $founder {proposed|set about} {$activity in $town on a proper footing|founding a permanent establishment for $activity}.
{Before then|Until that time}, {$activity in $town had been a matter for individuals working from their own houses|the town's needs had been served, if at all, from $near_city}, and {there was a growing feeling|many believed} that {the town deserved better|a proper establishment was overdue}.
{$founder|Its founder, $founder}, was {a $founder_trade by trade|the son of a local $founder_trade}, {known for|remembered for} {his energy and his temper|his careful accounts|his habit of writing long letters to the newspaper}, and {he put much of his own money into the scheme|he persuaded several friends to join him}.
{The first years|The early years} were {difficult|uncertain}: {money was short|there were disputes over the site}, {and at one point the whole enterprise nearly failed|and more than one of the first partners withdrew}.
{The choice of site|The site chosen}, {beside the River $river|on the edge of the town|at the bottom of $street}, was {determined by|governed by} {the need for water|the price of land|the goodwill of the $family family}, and {it proved a good one|it served for more than a century}.

== building
{The first building|The original premises} {was|were} {a plain stone structure|a converted barn|a row of cottages knocked together}, {with|having} {a slate roof|tall windows} and {a yard|a small garden} {at the back|running down to the river}.
{In $year_build|By $year_build} {a new and larger building|a handsome new hall} {had been put up|was opened} {to designs by a $near_city architect|on the same site}, {paid for partly by public subscription|with the help of a loan from the bank}.
{Its front|The front}, {of local stone with a carved date stone|in red brick with stone dressings}, {still stands|survives} {on $street|facing the river}, {although|but} {the interior|the inside} {has been altered many times|bears little trace of its first use}.
{Visitors in the 1880s|A visitor in the 1870s} {described|wrote of} {the building as|it as} {"solid, useful and entirely without ornament"|"the pride of the town"|"a credit to the district"}, {which seems fair|a verdict that still seems fair}.

== growth
{Under $manager|During the years when $manager was in charge|Under the management of $manager}, who {took charge|became secretary} in $year_manager, {$short grew steadily|the enterprise prospered}, and {by the end of the century|within twenty years} {it employed or served a large part of the town|its name was known well beyond $county}.
{The number of $members|Its membership} {rose|grew} {from a few dozen to several hundred|sharply} {in the decades that followed|as the town itself grew}, and {new rules|a new constitution} {had to be drawn up|were adopted} {to manage the larger numbers|in $year_manager}.
{The arrival of the railway|The opening of the new road to $near_city} {brought|opened} {new customers|new opportunities}, {and $short began to supply|and before long $short was providing} $product {to towns across $county|far beyond the valley}.
{Records from this time|The minute books of the period} {show|reveal} {a busy and confident institution|a lively, argumentative community}, {debating|arguing over} {wages|rules|subscriptions} {and the proper hours of work|and the admission of new members} {at great length|with some heat}.
{New equipment|New methods} {introduced in the 1880s|brought in around 1890} {made $activity faster and cheaper|changed the daily routine}, {though|but} {some of the older $members|several long-serving $members} {resented the changes|complained that the work had lost its character}.

== work
{A working day|The day} at $short {began|started} {at six in the morning|before dawn|with the ringing of a hand bell at seven}, and {in the busy months|at the height of the season} {it might last twelve hours or more|it often ran on by lamplight into the evening}.
{Each|Every} {stage of the work|part of the process} {had its own skilled hands|belonged to a particular group of $members}, {and apprentices spent years|and a newcomer might spend years} {learning one task thoroughly|before being trusted with the finer work}.
{The tools|The equipment} {were simple but well made|changed little for generations}, {and many were made or mended on the premises|and some of them survive in the town museum}, {worn smooth by use|marked with the initials of their owners}.
{Noise|The sound of the work} {was a constant companion|could be heard across the town}, {and people living nearby|and older residents} {say they could tell the time of day by it|remember it as the background to their childhood}.
{Quality|Good workmanship} {was a matter of pride|was jealously guarded}, and {anything that fell short|work that was not up to standard} {was broken up and started again|was sold off cheaply at the gate}.
{Wages|Pay} {were modest|were never high}, {but the work was steady|but employment was regular}, {and in hard years|and in bad winters} $short {kept on|held on to} {its people|its $members} {when other employers laid men off|when others could not}.

== community
$short {was never only|was always more than} {a place of work|a business}: {it ran a sick club|it kept a savings fund|it organised a choir and a football team}, and {its annual outing|its summer excursion} {to the coast|by train to $near_city} {was the event of the year|was remembered for decades}.
{At Christmas|On feast days} {the yard was swept|the rooms were cleared} and {tables were set out|a supper was held} {for the $members and their families|for everyone connected with the place}, with {music|speeches} {that went on late into the night|from the manager and the oldest hand}.
{The town's|$town's} {newspaper|weekly paper} {reported|followed} {its affairs|every change at $short} {closely|with interest}, {and its fortunes|and news of good or bad trade} {were discussed|was talked over} {in every shop and inn|on every street corner}.
{Many|A number of} {local people|townspeople} {who never worked there|with no direct connection} {still speak of $short as|still refer to $short as} {"ours"|part of the town}, {which says a good deal about its place in local life|a sign of how deeply it was woven into the place}.

== people
{Among the best remembered of its $members|One of the best-known figures} was $person, who {served for more than forty years|joined as a child and stayed until retirement}, and {whose memories were written down|whose notebooks were collected} {by a local historian in the 1950s|by a schoolteacher shortly before $person_he died}.
$person {recalled|remembered} {the long hours|the cold of winter mornings|the noise and the heat}, {but also|and also} {the friendships|the sense of pride}, {and the outings to the coast each summer|and the suppers held every Christmas}.
{Women|Children} {played a larger part|were more important} {in the work of $short|in its life} {than the official records suggest|than is often realised}: {they kept the accounts|they did much of the finishing work|they raised money at bazaars and fêtes}, {often without pay|usually without recognition}.
{Several families|A few families} {gave $short three or four generations|sent son and daughter after parent} {of $members|to $short}, {and the same surnames|and names such as $surname_a and $surname_b} {appear in its records|recur in the records} {from the beginning to the end|for a hundred years}.

== trouble
{In $year_trouble|The winter of $year_trouble} {brought disaster|was the worst in its history}: {a fire broke out|the River $river flooded|a severe storm struck} {one night in $month|in the early hours of the morning}, and {much of the building was destroyed|the damage took a year to repair}.
{The years between the wars|The 1920s and 1930s} were {hard|a lean time}, {as trade fell away|as members drifted to other pursuits}, and {$short survived|the enterprise survived} {only through economies|only because a few people refused to let it close}.
{During the war|In the war years} {many of the $members left|the younger men went away} {to serve in the forces|to work elsewhere}, {and the work was carried on|and $short was kept going} {by the old and the very young|by a handful of women and retired men}.
{Competition from larger concerns|Changing tastes} {in the 1950s and 1960s|after the war} {made it increasingly difficult to carry on|brought a slow decline}, {and in $year_close|until, in $year_close,} {the decision was taken to close|$short closed its doors}.

== today
{Today|Since then} {the building is used as|the old premises serve as} {a community centre|flats|a heritage centre|workshops for local craftspeople}, {and a small display|and a plaque by the door} {tells its story|recalls its history}.
{In the 1990s|More recently} {a group of volunteers|a local trust} {revived|restored} {$short|part of the old building}, and {demonstrations of $activity|open days} {are now held|take place} {on summer weekends|several times a year}, {drawing visitors from across $county|which are popular with schools}.
{The history of $short|Its story} {is in many ways the history of $town itself|reflects the fortunes of the town}: {a long period of growth|a confident beginning}, {a slow decline|hard times in the middle of the twentieth century}, and {a new life as a place of memory|a careful revival}.
{Its papers|Its records}, {including minute books, accounts and photographs|from account books to posters}, {are kept|are now preserved} {in the county record office|at the town museum}, {where they are consulted by family historians|and are a valuable source for historians of the region}.
""")


def document(rng: random.Random) -> tuple[str, list[str]]:
    inst, short, members, activity, product = rng.choice(KINDS)
    town = place_name(rng)
    f_first, f_last, _ = person(rng, "m")
    m_first, m_last, _ = person(rng)
    p_first, p_last, p_sex = person(rng)
    year_found = rng.randint(1760, 1880)
    facts = {
        "title": f"{town} {inst}", "short": short, "members": members, "activity": activity, "product": product,
        "town": town, "county": place_name(rng), "near_city": place_name(rng), "river": river_name(rng),
        "street": rng.choice(V["street"]), "family": rng.choice(V["surname"]),
        "inn": rng.choice(["Red Lion", "George", "Swan", "Bell", "King's Head", "White Hart", "Crown"]),
        "founder": f"{f_first} {f_last}", "founder_trade": rng.choice(["draper", "miller", "solicitor", "brewer", "printer", "grocer", "doctor"]),
        "manager": f"{m_first} {m_last}", "person": f"{p_first} {p_last}", "person_he": "he" if p_sex == "m" else "she",
        "surname_a": rng.choice(V["surname"]), "surname_b": rng.choice(V["surname"]),
        "year_found": str(year_found), "year_build": str(year_found + rng.randint(8, 40)),
        "year_manager": str(year_found + rng.randint(15, 50)), "year_trouble": str(rng.randint(1890, 1935)),
        "year_close": str(rng.randint(1958, 1989)), "month": rng.choice(V["month"]),
    }
    fill = Filler(rng, facts, V, tidy_en)
    paragraphs = []
    for bank in ["origins", "origins", "building", "work", "growth", "growth", "people", "community", "trouble",
                 "trouble", "today"]:
        paragraphs.append(" ".join(fill.pick(BANKS[bank], rng.randint(3, 4))))
    return f"The {facts['title']}", paragraphs
