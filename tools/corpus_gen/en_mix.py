"""Slot-rich web documents: match reports, walking routes, timelines, book reviews, allotment diaries, club
round-ups and wildlife sighting logs.

Why these kinds: a haystack reads as template text when it meets the same fixed stretches of words twice.
Real web pages of these kinds are dense with particulars (names, minutes, scores, distances, dates, species),
so their sentences are short frames around several slots, and every frame has several openings. With large
name lists (surnames here are built from two parts, giving several hundred), a sentence rarely shares six
words in a row with another one, and the corpus can grow without repeating itself. Sentences are composed
per event (a goal, a step of a route, a year of a timeline, a day of a diary), so a document's length comes
from its events, not from a bank running out.
"""

from __future__ import annotations

import datetime
import random

from corpus_gen.en_vocab import V, place_name, pronouns, river_name
from corpus_gen.engine import Filler, parse_banks, tidy_en

# --------------------------------------------------------------------------------------------- vocabulary
FIRST_M = [*V["first_m"], "Aaron", "Adam", "Ben", "Callum", "Connor", "Dan", "Dean", "Elliot", "Ethan", "Finn",
           "Gareth", "Harry", "Ian", "Jack", "Jamie", "Kieran", "Liam", "Luke", "Mark", "Neil", "Oliver", "Paul",
           "Ravi", "Ryan", "Sam", "Scott", "Tom", "Vikram", "Will", "Yusuf", "Zak", "Craig", "Gavin", "Kevin",
           "Marcus", "Nathan", "Patrick", "Reece", "Stuart", "Tariq", "Wayne", "Alan", "Brian", "Colin", "Derek",
           "Graham", "Keith", "Malcolm", "Nigel", "Trevor"]
FIRST_F = [*V["first_f"], "Abbie", "Amy", "Bethan", "Chloe", "Claire", "Danielle", "Ellie", "Fiona", "Gemma",
           "Helen", "Imogen", "Jade", "Karen", "Laura", "Megan", "Nadia", "Nicola", "Priya", "Rachel", "Sian",
           "Tess", "Vicky", "Zara", "Amira", "Carol", "Debbie", "Gillian", "Jackie", "Lorraine", "Pauline",
           "Sandra", "Wendy", "Yvonne", "Anita", "Bridget", "Denise", "Freya", "Hayley", "Joanne", "Kirsty",
           "Leanne", "Maxine", "Natalie", "Paula", "Rebecca", "Shona", "Tanya", "Una"]
_SUR_A = ["Ash", "Brad", "Black", "Hal", "Whit", "Pen", "Thorn", "Mar", "Els", "Cal", "Hart", "Red", "Wyn",
          "Fair", "Kirk", "Lang", "Mill", "Stan", "Wood", "Brook", "Cress", "Dun", "Fen", "Grim", "Hol", "Lid",
          "Moss", "Nor", "Pick", "Rad", "Shel", "Tod", "Wal", "Bar", "Chad", "Dews", "Hay", "Lax", "Oak", "Ros"]
_SUR_B = ["worth", "ley", "ford", "ton", "by", "field", "well", "wood", "more", "ridge", "wick", "stead", "den",
          "hurst", "combe", "ham", "shaw", "bury", "dale", "gate", "house", "cliffe", "land", "croft"]
SURNAMES = sorted({*V["surname"], *(a + (b[1:] if a[-1] == b[0] else b) for a in _SUR_A for b in _SUR_B)})


def first_name(rng: random.Random, sex: str) -> str:
    return rng.choice(FIRST_M if sex == "m" else FIRST_F)


def full_name(rng: random.Random, sex: str | None = None) -> tuple[str, str, str]:
    sex = sex or rng.choice("mf")
    return first_name(rng, sex), rng.choice(SURNAMES), sex


def _distinct(rng: random.Random, make, n: int) -> list:
    out: list = []
    while len(out) < n:
        x = make(rng)
        if x not in out:
            out.append(x)
    return out


def _kilometres(n: int) -> str:
    return f"{n} kilometre" if n == 1 else f"{n} kilometres"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

# ------------------------------------------------------------------------------------------- match report
TEAM_SUFFIX = ["Town", "United", "Rovers", "Athletic", "Wanderers", "Albion", "Rangers", "Harriers", "Villa",
               "Swifts", "Corinthians", "Colliery", "Sports", "Juniors"]
LEAGUES = ["Division One", "the Premier Division", "Division Two", "the Senior Cup", "the Challenge Trophy",
           "the Sunday League", "the Combination League", "the Charity Shield"]

MATCH = parse_banks("""
== lede
$winner {came from behind|held their nerve|made the most of their chances} to beat $loser $score in $league on $weekday.
{A crowd of about $crowd|Around $crowd spectators} {saw|watched} $winner {edge past|see off|get the better of} $loser $score at $ground.
$loser {slipped to a $score defeat|were beaten $score} {at home|on their own pitch} by $winner, {their $nth loss of the season|a result that leaves them in the bottom half}.
{It took|There were} {until the $lastmin minute|barely ten minutes left} before $winner {settled|finally made safe} a {scrappy|tense|lively} $score win over $loser.
{Goals in either half|Two quick goals and a late penalty|A strong second half} gave $winner a $score win over $loser at $ground.
== draw
$home and $away {shared the points|could not be separated} in a $score draw at $ground on $weekday.
{Neither side deserved to lose|Honours ended even} {at $ground|on $weekday} as $home and $away {played out|fought out} a $score draw.
{A point apiece|One point each} {was|seemed} a fair result {after|from} a $score draw between $home and $away {in wet conditions|on a heavy pitch|in bright sunshine}.
== first
$scorer {opened the scoring|broke the deadlock|put $team ahead} {on $min minutes|in the $nmin minute}, {turning in|sweeping home|heading in} {a cross from $assist|$assist's low ball|a corner from $assist}.
{The first goal|The opening goal} {went to $team|fell to $team} {on $min minutes|in the $nmin minute}, {$scorer|$scorer, unmarked at the far post,} {heading in|volleying in} {$assist's cross|a corner from $assist}.
{It was goalless until|The deadlock held until} {the $nmin minute|$min minutes had gone}, {when|and then} $scorer {ran on to|latched on to} {a long ball from $assist|$assist's pass} and {scored|slotted it home}.
== goal
{On $min minutes|In the $nmin minute|With $min minutes gone}, $scorer {curled a shot|drove the ball|fired a half-volley} {past $keeper|beyond the reach of $keeper|into the far corner} {from the edge of the area|from twenty yards}.
$assist {picked out|found|slid the ball through to} $scorer, who {rounded $keeper|finished calmly|lifted the ball over $keeper} {to make it $tally|for $tally}.
{The next goal|Another goal} {went to $team|fell to $team} {through|when} $scorer {struck on $min minutes|scored in the $nmin minute}{| after $assist's free kick was only half cleared}, {making it $tally|for $tally}.
{A penalty|A spot kick} {was awarded|was given} {on $min minutes|in the $nmin minute} {when|after} $assist {was tripped|was bundled over} in the box, and $scorer {sent $keeper the wrong way|scored it low to the left}.
{$scorer's header from|A glancing header by $scorer from} {$assist's corner|a free kick by $assist} {made it $tally|made the score $tally} {in the $nmin minute|on $min minutes}.
{On $min minutes|In the $nmin minute|With $min minutes played}, $scorer {pounced on a loose ball|reacted first to a rebound|beat two defenders} {and scored|to score} from close range {for $tally|making it $tally}.
$scorer {was on the scoresheet|found the net} {on $min minutes|in the $nmin minute}, {running on to $assist's pass|when $keeper could only parry a shot from $assist}, {to make it $tally|which made it $tally}.
{Substitute $scorer|$scorer, on for only five minutes,} {needed one touch|took one touch} to {make it $tally|score}, {meeting $assist's cross|finishing off a move started by $assist} {in the $nmin minute|on $min minutes}.
{A mistake at the back let in|A loose pass gifted the ball to} $scorer, {who made no mistake|who finished} {on $min minutes|in the $nmin minute} {to make it $tally|for $tally}.
== chance
$keeper {kept $other in the game|was busy all afternoon}, {tipping|pushing} {a shot from $player|$player's header} {over the bar|round the post} {with a fine save|at full stretch}.
$player {hit the post|struck the bar|shot narrowly wide} {for $team|with the goal at his mercy} {soon afterwards|a few minutes later}, {and|while} {$player2 should have done better|$player2 headed over} from {a corner|a free kick}.
{The referee|Referee $ref} {booked|showed a yellow card to} $player {for a late challenge|after a clash with $rivalplayer} {midway through the half|shortly afterwards}.
$player2 {was replaced by|made way for} $player {soon afterwards|not long after}, {as $team went looking for|with $team pushing for} {another goal|a way back}.
{Chances were few|Clear chances were scarce} {in a scrappy spell|for long periods}, with {$player's long-range effort|a volley from $player that flew over} {the only real threat|the nearest thing to a goal}.
{Both sides|Both teams} {struggled|found it hard} to {keep the ball|string passes together} {on a bumpy pitch|in a swirling wind}, {and|so} {long balls|set pieces} {were the order of the day|produced most of the chances}.
$defender {cleared off the line|blocked on the line} {from $player|to deny $player} {with $keeper beaten|in a goalmouth scramble}, {and|and} {$other survived|$other came through} {a nervy spell|some late pressure}.
== quote
"{I thought we were the better side|We deserved that}, {especially after the break|for the effort alone}," said {$team manager $manager|$manager, who manages $team}. "{The lads worked hard|Everyone put a shift in}, and {$scorer's goal was a good one|the clean sheet pleases me most}."
$manager {said afterwards|admitted afterwards} that {it had not been pretty|$team had ridden their luck}. "{We know we have to improve|There are things to work on}, but {three points is three points|a win is a win at this stage}," {$manager_he said|$manager_he added}.
"{Disappointing|Frustrating} is {the word|the only word}," said $othermanager {of $other|after the game}. "{We gave away soft goals|We did not take our chances}, and {at this level you get punished|you cannot do that against a side like them}."
== table
{The result|The win} {lifts|takes} $winner {up to $position|to $position in the table}, {$gap points behind the leaders|level on points with $rival}, {while|and} $loser {stay $position2|drop to $position2}.
{$winner are now unbeaten in $run games|That makes it $run games without defeat for $winner}, {and|and} {their next match is|they face} {a trip to $rival|$rival at home} {on $nextday|next $nextday}.
$loser {have won only $wins of their $played games|have picked up $points points from $played matches}, {and|and} {manager $othermanager|their manager} {will want a response|hopes for better} {against $rival on $nextday|when they meet $rival}.
""")


def _team(rng: random.Random) -> str:
    return f"{place_name(rng)} {rng.choice(TEAM_SUFFIX)}"


def _lineup(rng: random.Random, team: str, surnames: list[str]) -> str:
    subs = f" Subs: {surnames[11]}, {surnames[12]} ({surnames[rng.randint(1, 10)]}, {rng.randint(55, 88)})."
    return f"{team}: " + ", ".join(surnames[:11]) + "." + subs


def match_report(rng: random.Random) -> tuple[str, list[str]]:
    home, away = _distinct(rng, _team, 2)
    # One draw for both squads and the officials: a surname on both team sheets (or the referee's) reads as a slip.
    names = rng.sample(SURNAMES, 29)
    squads = {home: names[:13], away: names[13:26]}
    g_home, g_away = rng.choice([(1, 0), (2, 1), (3, 1), (2, 0), (0, 1), (1, 2), (1, 1), (2, 2), (3, 2), (4, 1),
                                 (0, 2), (1, 3), (0, 0)])
    winner, loser = (home, away) if g_home > g_away else (away, home)
    m1, m2, ref = [(first_name(rng, "m"), sur) for sur in names[26:]]
    facts = {
        "home": home, "away": away, "winner": winner, "loser": loser,
        "score": f"{max(g_home, g_away)}-{min(g_home, g_away)}",
        "league": rng.choice(LEAGUES), "weekday": rng.choice(["Saturday", "Sunday", "Tuesday night",
                                                              "Wednesday evening", "Saturday afternoon"]),
        "crowd": str(rng.randrange(60, 900, 10)), "ground": rng.choice([
            f"{rng.choice(V['street']).split()[0]} Lane", f"{place_name(rng)} Park", "the Recreation Ground",
            f"{rng.choice(SURNAMES)} Field", "the Memorial Ground", f"{place_name(rng)} Road"]),
        "nth": _ordinal(rng.randint(3, 9)), "lastmin": _ordinal(rng.randint(78, 89)),
        "ref": " ".join(ref),
        "manager": f"{m1[0]} {m1[1]}", "manager_he": "he", "othermanager": f"{m2[0]} {m2[1]}",
        "position": _ordinal(rng.randint(2, 8)), "position2": _ordinal(rng.randint(9, 16)),
        "gap": str(rng.randint(2, 9)), "rival": _team(rng), "run": str(rng.randint(3, 9)),
        "nextday": rng.choice(WEEKDAYS[:6]), "wins": str(rng.randint(1, 4)), "played": str(rng.randint(9, 18)),
        "points": str(rng.randint(4, 12)),
    }
    fill = Filler(rng, facts, V, tidy_en)
    lede = fill.one(MATCH["draw"] if g_home == g_away else MATCH["lede"])
    goals = sorted([(rng.randint(3, 90), home) for _ in range(g_home)] + [(rng.randint(3, 90), away) for _ in range(g_away)])
    mins = sorted(rng.sample(range(3, 91), len(goals)))
    tally = {home: 0, away: 0}
    halves: list[list[str]] = [[], []]
    for k, (minute, (_m, team)) in enumerate(zip(mins, goals, strict=True)):
        tally[team] += 1
        other = away if team == home else home
        scorer, assist = rng.sample(squads[team][1:11], 2)
        fill.facts.update({"team": team, "scorer": scorer, "assist": assist, "keeper": squads[other][0],
                           "min": str(minute), "nmin": _ordinal(minute),
                           # Scores are given home side first, as reports do.
                           "tally": f"{tally[home]}-{tally[away]}"})
        got = fill.pick(MATCH["first" if k == 0 else "goal"], 1)
        if got:
            halves[minute > 45].append(got[0])
    for half in halves:
        for _ in range(rng.randint(1, 2)):
            team = rng.choice([home, away])
            other = away if team == home else home
            p1, p2 = rng.sample(squads[team][1:13], 2)
            # A clearance or a clash involves a player of the other side; a team's own keeper saves its opponents' shots.
            d1, d2 = rng.sample(squads[other][1:11], 2)
            fill.facts.update({"team": team, "other": other, "player": p1, "player2": p2, "keeper": squads[other][0],
                               "defender": d1, "rivalplayer": d2})
            half.insert(rng.randint(0, len(half)), fill.one(MATCH["chance"]))
    fill.facts.update({"team": winner, "other": loser, "scorer": squads[winner][rng.randint(6, 10)]})
    after = [] if g_home == g_away else [fill.paragraph(MATCH["quote"], rng.randint(1, 2)),
                                         fill.paragraph(MATCH["table"], 2)]
    blocks = [lede, " ".join(halves[0]), " ".join(halves[1]), *after, "## Teams", _lineup(rng, home, squads[home]), _lineup(rng, away, squads[away])]
    title = rng.choice([f"{home} {g_home}-{g_away} {away}", f"Match report: {home} v {away}",
                        f"{winner} too strong for {loser}" if g_home != g_away else f"Honours even at {home}",
                        f"{league_title(facts['league'])}: {home} {g_home} {away} {g_away}"])
    return title, [b for b in blocks if b]


def league_title(league: str) -> str:
    return league[4:] if league.startswith("the ") else league


# -------------------------------------------------------------------------------------------------- walk
GATES = ["stile", "kissing gate", "field gate", "footbridge", "cattle grid", "ladder stile", "wicket gate",
         "plank bridge", "metal gate", "squeeze stile"]
LANDMARKS = ["stone barn", "fingerpost", "telephone mast", "old mill",
             "ruined cottage", "farmhouse", "trig point", "cairn", "lime kiln", "sheepfold", "chapel",
             "war memorial", "bench", "water trough", "pylon", "telephone box", "churchyard wall",
             "plantation", "old quarry", "railway bridge", "weir", "lock", "boathouse", "dovecote"]
PATHS = ["track", "green lane", "field edge", "bridleway", "causeway", "towpath", "sunken lane", "grassy path",
         "stony track", "holloway", "permissive path", "old railway line"]
WALK = parse_banks("""
== step
{Go through|Pass through|Cross} the $gate {and|then} {bear $dir|turn $dir|keep $dir} {along|on to} the $path, which {climbs gently|runs level|drops steadily} for {about $dist|roughly $dist}.
{After $dist|Some $dist further on|In about $dist}, {look for|watch for|you will see} {A_ $lm1 on your $dir|the $lm1 $side}; {go past it|keep it on your $dir} and {head for|aim for} the $lm2.
{Keep|Stay} {to the $path|on the $path} {past|beyond} {the $lm1|A_ $lm1}, {ignoring|passing} {a path to the $dir|two turnings on the $dir}, until {it meets|you reach} {a lane|the road} {by A_ $lm2|near A_ $lm2}.
{At the $lm1|By the $lm1|Beside the $lm1}, {fork $dir|take the $dir fork|turn sharp $dir} {up|along|down} {a narrow $path|the $path} {with|between} {a hedge|a wall|a fence} on {the $dir2|your $dir2}.
{Climb|Walk up|Follow} the $path {for $dist|about $dist} {to|as far as} {A_ $lm1|the $lm1}, {where|at which point} {the view opens out|$hill comes into view|the ground levels off}.
{Continue|Carry on} {downhill|ahead|straight on} {with the $river on your $dir|beside the $river} {for $dist|for about $dist}, {then|and then} {cross|use} the $gate {to reach|towards} the $lm2.
{Turn $dir at the $lm1|At the $lm1, turn $dir} {and walk|then walk} {along the lane|on the verge} for {$dist|about $dist}, {taking care|with care} {as it can be busy|because of the traffic|on the blind bend}.
{The path is faint here|Here the path is hard to make out}: {aim|head} {for the $lm1|towards A_ $lm1} {on the skyline|at the far side of the field}, {then|and} {drop down|bear $dir} {to the $lm2|to A_ $lm2}.
{Cross the stream by|Use} the {stepping stones|ford} {or, after rain,|or, if the water is high,} the {footbridge|road bridge} {$dist upstream|a little further on}, {and rejoin the $path|then pick up the $path}.
{From the $lm1|Leaving the $lm1}, {follow|take} {the waymarks|the yellow arrows} {across $n fields|through $n fields}, {keeping|staying} {close to|near} the {hedge|wall} on {the $dir|your $dir}.
{Pass|Walk past} {the $lm1 and|A_ $lm1, then} {a row of cottages|some farm buildings}, {and|and} {at the junction|where the lane bends} {go $dir|take the $path on the $dir} {signed to $place|towards $place}.
{Go|Head} {over the $gate|through the $gate} {into $wood|into woodland}, {where|and} the $path {can be muddy|is often wet} {in winter|after rain}; {after $dist|in $dist} {it leaves the trees|you come out} {at A_ $lm2|by the $lm2}.
== end
{Retrace your steps|Return the same way} {to the $lm1|as far as the $lm1}, {then|and} {take the other path|bear $dir} {back to|down to} {$start|the car park}, {about $dist away|which is about $dist}.
{From the $lm1|Back at the $lm1}, {it is|the walk has} {about $dist|only $dist} {back to|left to} $start, {mostly downhill|along the lane|on the same $path}.
$start is {about $dist|only $dist} {beyond the $lm1|past the $lm1}, {down the lane|along the $path}, {where the walk ends|which completes the circuit}.
== intro
{This $km-kilometre walk|A circuit of about $km kilometres} {starts from|begins at} $start {in $place|at $place} and {takes most people|should take} {$hours|about $hours}, {with|including} {one steep climb|a couple of short climbs|almost no climbing}.
{The route follows|Most of the walk is on} {field paths|tracks and lanes} {around $place|between $place and $place2}, {with|and has} {views of $hill|a stretch beside the $river} {near the start|in the middle}.
{Parking is|You can park} {free|for a small charge} {at $start|beside $start}, {and|while} {the $pub in $place|a café in $place2} {serves food|does lunches} {most days|except on Mondays}.
{Boots are|Good footwear is} {advisable|a good idea} {all year|outside summer}: {the ground|parts of the route} {can be wet|stay muddy} {below $hill|near the $river}, {and there are $n stiles|and there are several stiles}.
== poi
$place {grew up|developed} {around|beside} {its $building|a crossing of the $river}, {and|and} {the $building2|its $building2} {still stands|can still be seen} {near $start|on the main street}.
{From the top of $hill|On a clear day from $hill} {you can see|the view takes in} {$place2|the $river valley} {and|and, further off,} {the hills beyond $place3|the sea}.
{Look out for|Watch for} {$bird and $bird2|$bird} {along the $river|in the hedges} {in spring|in summer|in autumn}, {and|and} {$flower|patches of $flower} {in the verges|under the hedges} {in $month|around $month}.
{The $lm1 near the halfway point|The $lm1 on the route} {dates from|was built around} {$year|the $century}, {when|at a time when} {the land|the valley} {was farmed by $job|was busy with $job}.
""")

DIRS = ["left", "right"]


def walk(rng: random.Random) -> tuple[str, list[str]]:
    place, place2, place3 = _distinct(rng, place_name, 3)
    hill = f"{rng.choice(SURNAMES)} {rng.choice(['Hill', 'Pike', 'Edge', 'Knoll', 'Beacon', 'Down', 'Tor'])}"
    km = rng.randint(5, 16)
    year = rng.randint(1680, 1910)
    facts = {"place": place, "place2": place2, "place3": place3, "hill": hill, "river": river_name(rng),
             "km": str(km), "hours": rng.choice(["two hours", "two and a half hours", "three hours",
                                                  "three to four hours", "half a day"]),
             "start": rng.choice([f"the church in {place}", "the village hall", f"{place} green",
                                  "the old station yard", f"the {rng.choice(['Plough', 'Bell', 'Swan', 'Oak'])} Inn"]),
             "pub": rng.choice(["pub", "inn", "tearoom", "farm shop"]), "building": rng.choice(V["building"]),
             "building2": rng.choice(V["building"]), "bird": _bird_plural(rng.choice(V["bird"])),
             "bird2": _bird_plural(rng.choice(V["bird"])), "flower": rng.choice(V["flower"]),
             "month": rng.choice(MONTHS[2:9]), "year": str(year), "century": f"{_ordinal(year // 100 + 1)} century",
             "job": rng.choice(V["job_plural"]), "wood": rng.choice(["the wood", f"{rng.choice(SURNAMES)} Wood",
                                                                     "a beech wood", "the plantation"])}
    if facts["bird"] == facts["bird2"]:
        facts["bird2"] = "warblers"
    facts["n"] = rng.choice(["three", "four", "five", "six", "eight"])
    fill = Filler(rng, facts, V, tidy_en)
    blocks = [fill.paragraph(WALK["intro"], rng.randint(2, 4)), "## Route"]
    seen_landmarks: set[str] = set()
    n_steps = rng.randint(7, 11)
    for _ in range(n_steps):
        lm1, lm2 = rng.sample(LANDMARKS, 2)
        seen_landmarks.update((lm1, lm2))
        fill.facts.update({"lm1": lm1, "lm2": lm2, "gate": rng.choice(GATES), "path": rng.choice(PATHS), "dir": rng.choice(DIRS),
                           "dir2": rng.choice(DIRS), "side": rng.choice(["ahead", "on the skyline", "below you"]),
                           "dist": rng.choice([f"{rng.randrange(100, 900, 50)} metres", _kilometres(rng.randint(1, 2)),
                                               "half a kilometre", f"{rng.randint(2, 6)}00 metres"]),
                           "n": rng.choice(["two", "three", "four", "five"])})
        got = fill.pick(WALK["step"], 1)
        if got:
            blocks.append(f"1. {got[0]}")
    # A landmark no step mentioned, so the last item does not echo the one before it.
    fill.facts["lm1"] = rng.choice([x for x in LANDMARKS if x not in seen_landmarks])
    # The way back always comes last (it was one of the steps, and could land mid-route).
    blocks += [f"1. {s}" for s in fill.pick(WALK["end"], 1)]
    blocks += ["## Along the way", fill.paragraph(WALK["poi"], rng.randint(2, 4))]
    title = rng.choice([f"Walk: {place} and {hill}", f"A circular walk from {place}",
                        f"{place} to {place2} and back ({km} km)", f"Short walks: {hill} from {place}"])
    return title, [b for b in blocks if b]


# ---------------------------------------------------------------------------------------------- timeline
TIMELINE = parse_banks("""
== founding
{$name1 founded|$name1 set up|A group led by $name1 formed} the $orgshort {in a room above the $building|at a meeting in the $building|with $members members}.
{The $orgshort was founded|The $orgshort came into being} {at a meeting called by $name1|after a letter from $name1 in the county paper}, {with|and had} {$members members|$members founding members} {by the end of the year|within a few months}.
{A handful of|Some $members} {people|residents} {met at the $building|gathered in the $building} {at the invitation of $name1|on A_ $month evening} {and agreed to form|to form} the $orgshort.
== event
{The first|An early} {meeting|season|exhibition} {was held|took place} {in the $building|at $place2}, {attended by|with} {$members people|about $members members}.
{$name1 became|$name1 was elected} {secretary|chair|treasurer}, {a post|an office} {$pron held|that $pron kept} for {$span years|the next $span years}.
{A bequest of|A gift of} $money {from $name2|from the estate of $name2} {paid for|allowed the purchase of} {a permanent home|the lease of the $building}.
{Membership reached|Numbers rose to} $members, {helped by|thanks to} {a new railway link with $place2|the growth of $place|an article in the county paper}.
{The $building was damaged|Fire damaged the $building|Floods reached the $building}, and {meetings moved to|the $org met in} {the school at $place2|a borrowed room in the $building2} for {$span years|several years}.
{$name2 wrote|$name2 published} {the first history of the $org|a short account of the $org}, {$pages pages long|running to $pages pages}.
{The $org merged with|The $org absorbed} {its rival society in $place2|a smaller society from $place2}, {and|and} {took the name it still uses|kept its own name}.
{A new wing|An extension} {designed by $name1|paid for by subscription} {was opened|opened} {by $name2|on a wet afternoon in $month}, {at a cost of|costing} $money.
{The $org celebrated|Members marked} {an anniversary|its anniversary} {with a dinner at the $building|with an exhibition in $place}, {attended by $members guests|at which $name2 spoke}.
{Falling numbers|A shortage of money} {forced|led to} {the sale of|the closure of} the $building2, {and|but} {the collections moved to|the records went to} {the county archive|a new home in $place2}.
{$name1 and $name2|Two members, $name1 and $name2,} {began|started} {a newsletter|an annual lecture|a junior section}, {which|and it} {still runs today|ran until $later}.
{A legacy of $money|A grant of $money} {paid for|allowed} {the restoration of|new windows and a roof for} the $building, {reopened by|reopened in $month by} $name2.
{The $org moved|The $org's headquarters moved} {to $place2|to the old $building2}, {where|and} {it remains|it has stayed ever since}.
== intro
The $org is {a voluntary society|a members' club|a local charity} based in $place, {founded in $founded|with roots going back to $founded}. {It has|Today it has} {about $now members|some $now members} and {meets|holds meetings} {on $weekday evenings|every month} {in the $building|at $place2}.
{Its aims|The purposes set out in its rules} {have changed little|have hardly changed} {since $founded|over the years}: {to encourage|to promote} {the study of|an interest in} $subject {in and around $place|across the district}.
{The timeline below|The list that follows} {is drawn from|is based on} {the minute books|the society's own records}, {newspaper reports|the county paper} and {the memories of older members|members' recollections}; {corrections|additions} are welcome.
""")
ORG_KINDS = [("Natural History Society", "the plants and animals of the district"),
             ("Camera Club", "photography"), ("Choral Society", "choral music"),
             ("Local History Group", "the history of the parish"), ("Chess Club", "chess"),
             ("Allotment Association", "growing food"), ("Cycling Club", "cycling"),
             ("Horticultural Society", "gardening"), ("Model Railway Club", "model railways"),
             ("Rowing Club", "rowing on the $river"), ("Amateur Dramatic Society", "the theatre"),
             ("Literary Society", "books and reading"), ("Astronomical Society", "astronomy"),
             ("Bell Ringers' Guild", "change ringing")]


def timeline(rng: random.Random) -> tuple[str, list[str]]:
    place, place2 = _distinct(rng, place_name, 2)
    kind, subject = rng.choice(ORG_KINDS)
    org = f"{place} {kind}"
    founded = rng.randint(1840, 1935)
    facts = {"org": org, "orgshort": kind.split()[-1].lower(), "place": place, "place2": place2, "founded": str(founded), "subject": subject,
             "river": river_name(rng), "now": str(rng.randint(30, 400)), "weekday": rng.choice(WEEKDAYS[:5]),
             "building": rng.choice(V["building"]), "building2": rng.choice(V["building"])}
    fill = Filler(rng, facts, V, tidy_en)
    blocks = [fill.paragraph(TIMELINE["intro"], rng.randint(2, 3)), "## Timeline"]
    years = [founded, *sorted(rng.sample(range(founded + 1, 2024), rng.randint(7, 12)))]
    for year in years:
        first, sur, sex = full_name(rng)
        f2, s2, _ = full_name(rng)
        fill.facts.update({"name1": f"{first} {sur}", "name2": f"{f2} {s2}", "pron": pronouns(sex)["he"],
                           "members": str(rng.randint(12, 300)), "span": str(rng.randint(3, 30)),
                           "money": f"£{rng.randrange(50, 90_000, 50):,}", "pages": str(rng.randint(24, 380)),
                           "month": rng.choice(MONTHS), "later": str(min(2023, year + rng.randint(5, 40)))})
        got = fill.pick(TIMELINE["founding" if year == founded else "event"], 1)
        if got:
            blocks.append(f"- {year}: {got[0]}")
    title = rng.choice([f"{org}: a timeline", f"History of the {org}", f"The {org} since {founded}"])
    return title, blocks


# ----------------------------------------------------------------------------------------------- book review
BOOK_NOUNS = ["Harbour", "Orchard", "Lighthouse", "Winter", "Ferryman", "Glasshouse", "Archive", "Quarry",
              "Marsh", "Signal", "Weaver", "Tide", "Lantern", "Border", "Granary", "Summerhouse", "Bargain",
              "Crossing", "Inheritance", "Map", "Letters", "Salt Road", "Kiln", "Heron"]
BOOK_ADJ = ["Quiet", "Last", "Drowned", "Borrowed", "Hollow", "Second", "Northern", "Forgotten", "Long",
            "Painted", "Narrow", "Burning", "Lost", "Winter", "Distant", "Silent"]
BOOK = parse_banks("""
== setup
{Set in|Taking place in} $place {in $year|during the hard winter of $year|in the years after $year}, {it follows|the story follows} $hero, {a $job|a young $job|a widowed $job} who {returns home after $span years away|inherits a failing $business|takes a job nobody else wants}.
$hero {has not spoken to|has lost touch with|has fallen out with} {$pron2 $relative|$pron2 old friend $side} {for $span years|since the funeral}, {and|but} {a letter from $place2|an unexpected visit} {changes that|brings them back together}.
{The first chapters|The opening chapters} {introduce|bring in} $side, {a $job2|an old friend of the family}, {whose|and $side's} {debts|old quarrels|plans for the $business} {drive much of the plot|set events moving}.
== plot
{When|After} {the $business burns down|a stranger arrives in $place|the river floods the lower town}, $hero {must decide|has to choose} {whether to stay|between $place and a new life in $place2}.
{Midway through|In the middle section}, {the narrative jumps back|the book goes back} to {$year2|the summer of $year2}, {and|and} {we learn|the reader learns} {why $side left $place|what happened at the $building}.
$author {handles|manages} {the shifts in time|the two timelines|a large cast} {with confidence|with a light touch|mostly well}, {though|although} {the middle third drags|one or two threads are left hanging}.
{The best scenes|The strongest passages} {are the quiet ones|come in the kitchen of the $business|are set on the $river}: {$hero and $side|two people} {talking late into the night|mending nets|arguing over the accounts}.
{$side is|$side becomes} {the most vivid character|the heart of the book}, {and|and} {I missed $sidepron|the book sags} {whenever $sidehe is off the page|in the chapters without $sidepron}.
{The ending|The last chapter} {is|feels} {earned|rushed|a little too neat}, {but|and} {it left me|I finished it} {wanting to go back to the start|thinking about $hero for days}.
== verdict
{At $pages pages|Running to $pages pages}, {it is|this is} {a long book|not a quick read|a compact novel}, {but|and} {it rarely feels it|the pages turn easily|it repays patience}.
{Verdict|My rating}: {four stars out of five|three and a half stars|a solid four stars}. {Recommended for|Good for} {readers who like|anyone who enjoys} {slow-burning family stories|novels with a strong sense of place}.
{It is|This is} $author's {$nth novel|$nth book}, {and|and} {the most assured yet|a step on from the last}; {I will be looking out for|I look forward to} {the next|whatever comes next}.
""")


def book_review(rng: random.Random) -> tuple[str, list[str]]:
    place, place2 = _distinct(rng, place_name, 2)
    style = rng.randrange(3)
    noun = rng.choice(BOOK_NOUNS)
    book = (f"The {rng.choice(BOOK_ADJ)} {noun}" if style == 0 else f"{place} {noun}" if style == 1
            else f"The {noun} at {place}")
    af, asur, _ = full_name(rng)
    hf, hs, hsex = full_name(rng)
    sf, _ss, ssex = full_name(rng)
    while sf == hf:  # the second character needs a name of its own, and of the sex its pronouns say
        sf = first_name(rng, ssex)
    year = rng.randint(1890, 1990)
    facts = {"place": place, "place2": place2, "author": f"{af} {asur}", "hero": hf, "side": sf,
             "pron2": pronouns(hsex)["his"], "sidepron": pronouns(ssex)["him"], "sidehe": pronouns(ssex)["he"],
             "relative": rng.choice(["mother", "father", "sister", "aunt", "uncle", "grandmother"]),
             "year": str(year), "year2": str(year - rng.randint(8, 30)), "span": rng.choice(["two", "three", "five", "seven", "ten", "twelve"]),
             "job": rng.choice(["schoolteacher", "boatbuilder", "nurse", "printer", "vet", "baker", "solicitor"]),
             "job2": rng.choice(["shopkeeper", "ferryman", "housekeeper", "clerk", "fisherman"]),
             "business": rng.choice(["boatyard", "bakery", "hotel", "orchard", "printing works", "farm", "pub"]),
             "building": rng.choice(V["building"]), "river": river_name(rng), "pages": str(rng.randint(220, 560)),
             "nth": rng.choice(["second", "third", "fourth", "fifth"])}
    fill = Filler(rng, facts, V, tidy_en)
    intro = (f"{book} by {af} {asur} ({rng.choice(['Harrow', 'Meadowbank', 'Lantern', 'Quayside', 'Fell'])} "
             f"{rng.choice(['Press', 'Books'])}, £{rng.randint(9, 22)}.{rng.choice(['99', '50', '00'])}).")
    blocks = [intro, fill.paragraph(BOOK["setup"], rng.randint(2, 3)), fill.paragraph(BOOK["plot"], rng.randint(2, 3)),
              fill.paragraph(BOOK["plot"], rng.randint(1, 3)), fill.paragraph(BOOK["verdict"], rng.randint(2, 3))]
    title = rng.choice([f"Review: {book}", f"Book review: {book} by {af} {asur}", f"{book}, reviewed"])
    return title, [b for b in blocks if b]


# ------------------------------------------------------------------------------------------------ diary
VEG = ["broad beans", "runner beans", "French beans", "peas", "onion sets", "shallots", "leeks", "parsnips",
       "carrots", "beetroots", "lettuces", "cabbages", "sprouts", "courgettes", "squashes", "pumpkins",
       "tomatoes", "cucumbers", "potatoes", "radishes", "strawberries", "raspberries", "gooseberries",
       "blackcurrants", "sweet peas", "turnips", "swedes", "cauliflowers", "marrows", "chillies", "aubergines"]
PESTS = ["slugs", "pigeons", "blackfly", "snails", "caterpillars", "mice", "rabbits", "sparrows"]
DIARY = parse_banks("""
== day
{Sowed|Put in|Planted out} {two rows of $veg|a short row of $veg|the last of the $veg} {in bed $bed|along the $side edge|under the netting}, {about $cm centimetres apart|$cm centimetres apart}.
{Dug over|Cleared|Weeded} {bed $bed|the $side half of the plot|the patch by the shed} {in $hours|for $hours} {and|then} {spread|forked in} {$loads barrows of compost|a bag of manure}.
{The $veg are|My $veg are} {up at last|coming on well|looking sorry for themselves} {after the $weather|despite the $weather}, {and|but} the $veg2 {have still to show|have been hit by $pest}.
{Picked|Lifted|Harvested} {$kg kilos of $veg|a basket of $veg|the first $veg} {this morning|before the rain}, {which|and} {went to $name next door|made a good lunch}.
{$name from plot $plot|$name on plot $plot|$name, two plots down,} {gave me|swapped me} {a tray of seedlings|a bundle of canes|a bag of seed potatoes} {for|in return for} {some of my $veg2|a jar of chutney|help with the water butt}.
{$pest again|Trouble with $pest again}: {they have had|they took} {most of the $veg|half the $veg2} {in bed $bed|under the fleece}. {Put up|Added} {more netting|a ring of grit} {and|and} {hoped for the best|will see}.
{$weather all day|A day of $weather}, {so|and so} {only managed|did no more than} {an hour|half an hour} {of weeding|tidying the shed}, {and|then} {sat in the shed with a flask|went home early}.
{Watered|Gave a good soak to} {the $veg and the $veg2|everything in beds $bed and $bed2} {at seven|in the evening}; {the butts are|the water butt is} {nearly empty|down to a few inches} {after $days dry days|after the dry spell}.
{The committee|The site secretary} {has asked|reminded} {everyone|all plot holders} {to|that we must} {keep paths clear|cut the grass on their paths|move their bonfires} {before $when|by $when}.
{Took stock|Looked back at the notebook}: {$veg2 did well this year|the $veg were the best yet}, {but|while} {the $veg3 failed|nothing came of the $veg3}, {so next year|and next year} {they go in later|I will try a different variety}.
{Frost on the plot|A hard frost} {at dawn|overnight}, {$temp degrees|down to minus $tempneg}, {and|and} {the $veg|the tops of the $veg} {look blackened|took a knock}.
{Planted|Moved} {the $veg|a row of $veg} {into bed $bed|to the sunny end}, {next to|beside} {the $veg2|last year's $veg3}, {and|then} {staked them|tied them in} {with $name's canes|with string}.
""")


def diary(rng: random.Random) -> tuple[str, list[str]]:
    place = place_name(rng)
    year = rng.randint(2008, 2024)
    m0 = rng.randint(0, 8)
    neighbours = [f"{first_name(rng, s)}" for s in rng.choices("mf", k=6)]
    fill = Filler(rng, {}, V, tidy_en)
    blocks = [rng.choice([
        f"Notes from plot {rng.randint(3, 60)} at {place} allotments, {year}. Mostly for my own records, but "
        "other growers may find them useful.",
        f"This is my allotment diary for {MONTHS[m0]} to {MONTHS[min(11, m0 + 3)]} {year}, kept on a half plot "
        f"at the {place} site. Entries are short, written in the shed.",
        f"Another season on the {place} allotments. I write down what I sow and what comes up, so that {year + 1} "
        "goes a bit better than this year did."])]
    days = sorted(rng.sample(range(m0 * 28, (m0 + 4) * 28), rng.randint(9, 14)))
    for d in days:
        date = datetime.date(year, min(12, d // 28 + 1), d % 28 + 1)
        month, day = MONTHS[date.month - 1], date.day
        v1, v2, v3 = rng.sample(VEG, 3)
        fill.facts.update({"veg": v1, "veg2": v2, "veg3": v3, "bed": str(rng.randint(1, 6)),
                           "bed2": str(rng.randint(7, 9)), "side": rng.choice(["north", "south", "east", "west"]),
                           "cm": str(rng.choice([5, 10, 15, 20, 25, 30, 45, 60])),
                           "hours": rng.choice(["an hour", "two hours", "a morning", "the afternoon"]),
                           "loads": rng.choice(["two", "three", "four", "six"]),
                           "weather": rng.choice(["drizzle", "wind", "heavy rain", "sleet", "heat", "grey cloud"]),
                           "pest": rng.choice(PESTS), "kg": str(rng.randint(2, 9)), "name": rng.choice(neighbours),
                           "plot": str(rng.randint(1, 60)), "days": str(rng.randint(6, 20)),
                           "when": rng.choice(["the open day", "the end of the month", "the inspection"]),
                           "temp": "minus " + str(rng.randint(1, 6)), "tempneg": str(rng.randint(2, 7))})
        got = fill.pick(DIARY["day"], rng.randint(1, 2))
        if got:
            blocks.append(f"## {WEEKDAYS[date.weekday()]} {day} {month}")
            blocks.append(" ".join(got))
    title = rng.choice([f"Allotment diary, {year}", f"{place} allotments: a season's notes",
                        f"Plot notes, {MONTHS[m0]} {year}"])
    return title, blocks


# ------------------------------------------------------------------------------------------ club roundup
SPORTS = {
    "Bowls": ("rinks", "shots"), "Darts": ("legs", "legs"), "Quiz league": ("rounds", "points"),
    "Chess": ("boards", "points"), "Table tennis": ("sets", "games"), "Skittles": ("legs", "pins"),
    "Netball": ("quarters", "goals"), "Cricket": ("overs", "runs"),
}
ROUNDUP = parse_banks("""
== result
$teamA {beat|overcame|saw off} $teamB {by $a $unit2 to $b|$a-$b}, with $star {the pick of their players|in fine form|winning all three of $hisher games}.
{In a close match|In a tight contest|In a match that went to the last game}, $teamA {edged|pipped} $teamB $a-$b, {thanks largely to|helped by} {$star|a late run from $star}.
$teamB {had no answer to|were no match for|struggled against} $teamA, {losing|going down} $a-$b; {$star|only $star} {stood out|won more than $hisher share} for {the visitors|$teamB}.
{The match between $teamA and $teamB|$teamA against $teamB} {ended|finished} {all square at $a-$a|level at $a each}, with {both captains|$star and $star2} {happy to share the points|saying a draw was fair}.
{Newcomers|League newcomers} $teamA {recorded|picked up} {their first win|a second straight win} {against $teamB|at the expense of $teamB}, $a-$b, with $star {top-scoring with $n $unit2|making the difference}.
$star {was in outstanding form|had a night to remember} {for $teamA|as $teamA beat $teamB $a-$b}, {and|and} {$star2 added|$star2 chipped in with} {$n $unit2|a useful contribution}.
{Bottom side|Struggling} $teamB {gave|put up} {a good account of themselves|stiff resistance} {before losing|but lost} $a-$b to $teamA, with $star2 {the best of the losers|impressing for $teamB}.
{There was a shock|It was an upset} {in $division|at $venue}, {where|as} $teamB {beat|knocked over} {leaders|table-toppers} $teamA $a-$b{| in front of a big crowd}.
== note
{Congratulations to|Well done to} $star {on|for} {reaching $n years with the club|a first county call-up|winning the singles title}{| last week}.
{The annual dinner|The presentation evening} {will be held|takes place} {at the $venue|in $venue} on $day; {tickets|places} {cost £$price|are £$price} {from $star2|from the secretary}.
{New players are|Newcomers are} {always welcome|welcome at any level}: {practice nights are|come along on} $day {from $time|at $time} {at $venue|in the $venue}.
{Results for this page|Reports and scores} {should reach|must be with} {the editor|$star2} {by $day|no later than $day} {to be included|for the next issue}.
""")


def roundup(rng: random.Random) -> tuple[str, list[str]]:
    place = place_name(rng)
    sports = rng.sample(list(SPORTS), rng.randint(3, 5))
    fill = Filler(rng, {}, V, tidy_en)
    blocks = [rng.choice([
        f"Results and news from clubs around {place} for the week ending {_ordinal(rng.randint(1, 28))} "
        f"{rng.choice(MONTHS)}. Club secretaries can send reports to the sports desk.",
        f"Our weekly look at local sport in and around {place}, from the bowls green to the quiz league.",
        f"A busy week for {place}'s clubs, with league matches in several sports and a cup final to come."])]
    for sport in sports:
        unit, unit2 = SPORTS[sport]
        blocks.append(f"## {sport}")
        lines = []
        for _ in range(rng.randint(2, 4)):
            t_a, t_b = _distinct(rng, lambda r: f"{place_name(r)} {r.choice(['Club', 'Rovers', 'Saints', 'Social', 'Arms', 'Tigers', 'Owls', 'Foxes', 'Eagles', 'Bears', 'Old Boys', 'Ladies'])}", 2)
            (f1, s1, sex1), (f2, s2, _sex2) = full_name(rng), full_name(rng)
            star, star2 = f"{f1} {s1}", f"{f2} {s2}"
            hi = rng.randint(4, 30) if unit2 not in {"runs", "pins"} else rng.randint(90, 260)
            fill.facts.update({"teamA": t_a, "teamB": t_b, "a": str(hi), "b": str(rng.randint(1, hi - 1)),
                               "unit": unit, "unit2": unit2, "star": star, "star2": star2,
                               "hisher": pronouns(sex1)["his"], "n": str(rng.randint(max(2, hi // 2), hi)),
                               "division": rng.choice(["the first division", "the second division", "the cup"]),
                               "venue": rng.choice(["Conservative Club", "Legion hall", "sports club", "Red Lion",
                                                    "village hall", "community centre"])})
            got = fill.pick(ROUNDUP["result"], 1)
            if got:
                lines.append(got[0])
        if rng.random() < 0.6:
            fill.facts.update({"day": rng.choice(WEEKDAYS), "time": rng.choice(["7pm", "7.30pm", "6.45pm", "10am"]),
                               "price": str(rng.randint(12, 35))})
            lines += fill.pick(ROUNDUP["note"], 1)
        if lines:
            blocks.append(" ".join(lines))
    title = rng.choice([f"{place} sports round-up", f"Local sport: results from around {place}",
                        f"Club news and results, {place} and district"])
    return title, blocks


# --------------------------------------------------------------------------------------------- sightings
SITES = ["the scrape", "the north hide", "the reedbed", "the main lake", "the car park", "the sea wall",
         "the wader pool", "the feeding station", "the alder carr", "the heath", "the estuary", "the old orchard",
         "the river meadows", "the saltmarsh", "the ringing hut", "the boardwalk"]
SIGHT = parse_banks("""
== entry
{$count $birds|$count $birds, a good number for the time of year,} {on $site|at $site|over $site} {early on|first thing|in the late afternoon} ($observer).
{A single $bird|One $bird} {flew over $site|dropped in at $site|was seen briefly at $site} {around $clock|at about $clock}, {heading $dir|before moving off $dir} ($observer).
{$observer reports|$observer reported} $count $birds {feeding on|roosting on|moving along} $site, {along with|plus} {a few $birds2|at least $count2 $birds2}.
{Highlight of the day|Best bird of the day}: {A_ $bird|an obliging $bird} {at $site|near $site}, {showing well|on and off} {for about $mins minutes|until $clock} ({$observer|$observer and $observer2}).
$count $birds {still|again} {on $site|present on $site}, {with|and} A_ $other {heard|seen} {nearby|in the bushes} ($observer).
{A steady passage of|Good numbers of|A trickle of} $birds {over $site|past $site} {all morning|in the first two hours}, {at least $count|around $count} {in total|logged} ($observer).
{No sign of|Still no sign of} {the $bird|yesterday's $bird} {despite|in spite of} {a long search|a good look} {at $site|around $site}, {but|though} $count $birds2 {were some consolation|made up for it} ($observer).
{Ringing at $site|The ringing team at $site} {caught|processed} $count birds {this morning|before nine}, {including|among them} {$count2 $birds2|A_ $bird} ($observer).
""")


def _bird_plural(b: str) -> str:
    return b + ("es" if b.endswith(("sh", "ch")) else "s")


def sightings(rng: random.Random) -> tuple[str, list[str]]:
    reserve = f"{place_name(rng)} {rng.choice(['Marshes', 'Nature Reserve', 'Country Park', 'Reservoir', 'Ings', 'Estuary'])}"
    # Initials only from consonants: "Ellie A and ..." reads to the article check as "a and".
    observers = [f"{first_name(rng, s)} {rng.choice('BCDFGHJKLMNPRSTW')}" for s in rng.choices("mf", k=8)]
    month = rng.randint(0, 11)
    fill = Filler(rng, {}, V, tidy_en)
    blocks = [rng.choice([
        f"Recent sightings at {reserve}, as reported to the visitor centre and in the log book. Thanks to everyone "
        "who sent records in.",
        f"The latest bird news from {reserve} for {MONTHS[month]}. Records are unchecked; please send details of "
        "anything unusual to the recorder.",
        f"What has been seen at {reserve} lately, compiled from the log book in the main hide and from reports "
        "sent in by visitors."])]
    days = sorted(rng.sample(range(1, 29), rng.randint(8, 13)), reverse=True)
    for d in days:
        b1, b2, b3 = rng.sample(V["bird"], 3)
        o1, o2 = rng.sample(observers, 2)
        fill.facts.update({"bird": b1, "birds": _bird_plural(b1), "birds2": _bird_plural(b2), "other": b3,
                           "count": str(rng.randint(2, 24)), "count2": str(rng.randint(2, 9)),
                           "site": rng.choice(SITES), "observer": o1, "observer2": o2,
                           "clock": f"{rng.randint(6, 18)}:{rng.choice(['00', '15', '20', '30', '45', '50'])}",
                           "dir": rng.choice(["north", "south", "east", "west", "inland", "out to sea"]),
                           "mins": str(rng.randint(5, 40))})
        got = fill.pick(SIGHT["entry"], 1)
        if got:
            blocks.append(f"- {_ordinal(d)} {MONTHS[month]}: " + " ".join(got))
    title = rng.choice([f"{reserve}: recent sightings", f"Bird news from {reserve}", f"Latest sightings, {reserve}"])
    return title, blocks
