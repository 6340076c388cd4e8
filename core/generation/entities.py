"""Named entities of a document with their mention chains, ranked by mention frequency.

Mentions come from spaCy NER (default when installed) or the built-in proper-noun finder
(fallback; :mod:`core.generation.mentions`); :func:`extract_entities` says which ran. One
clustering step merges aliases (union-find over name keys = accent-folded, case-folded names
without titles):

(1) same key ("M. Myriel" = "Monseigneur Myriel" = "Myriel", i.e. title + surname);
(2) plural "Thénardiers" into "Thénardier";
(3) nicknames sharing a surname that co-occur: "Hick Holt" into "Hickman Holt" when one first
    name is a prefix of the other (or a known diminutive: Bob/Robert, ...) and both appear in the
    same passage at least once;
(4) subsumption: a name whose words form a contiguous part of longer names joins the most frequent
    of them when that one has at least twice the mentions of the runner-up ("Valjean" into
    "Jean Valjean"); never a surname several people bear nor a middle name ("Dillon" is not
    "Leo Dillon", "Walter" not "William Walter Elliot", the uncle "George Amberson" not "George
    Amberson Minafer", "Uncle George" not the nephew's "George": :mod:`.shared_names`);
(5) a name used with both male (M., Monsieur) and female (Madame, Mme.) titles, three titled
    mentions at least ("Mr Conroy" once, "Mrs Conroy" twice), keeps its female-titled mentions
    as a separate entity; a titled surname joins a fuller name of that surname in (4) only when
    the title fits it ("Mrs Malins" is not her son "Freddy Malins", "Mr Mooney" not his son
    "Jack Mooney", the wife "Mrs Bennet" not "Miss Bennet": :mod:`core.generation.surnames`);
(6) name forms of patronymic languages (:mod:`core.generation.name_forms`): "Pyotr Petrovitch" =
    "Luzhin" when written "Pyotr Petrovitch Luzhin"; "Dounia" = "Avdotya Romanovna" (known
    diminutive, written nearby); a name with a patronymic is a PERSON whatever NER said;
(7) a pet name said to the one first name + patronymic of its gender that the narrator names in
    those scenes ("Dolly!" to Darya Alexandrovna: :mod:`core.generation.name_address`);
(8) last, a bare title ("the Major") joins the one person whose mentions carry it ("Major
    Amberson"), never one of several (:mod:`core.generation.bare_titles`).

Demonyms of the book's places ("Nantucketer", "Parisian") and common nouns in capitals ("a
Samana", "the Samanas", "a State") are dropped; a name mostly written right after *at / in
/ to* is labelled PLACE, not PERSON; "Gotama, the Buddha", written twice, merges the name into
its epithet (:mod:`core.generation.name_forms`). The words around the mentions overrule NER's
label ("at Darmstadt" is no person, "Mamma" a ROLE: :mod:`core.generation.not_names`).

Names that NER tags NORP (nationalities, religious or political groups: "Indian", "Mormon") or
that the built-in list knows as such are kept out of the PERSON and PLACE lists. Every merge is
recorded on the entity (``Entity.merges``) so the CLI can show it. An optional LLM pass
(:mod:`core.generation.alias_merge`, prompt ``merge_aliases``) merges what strings cannot show
("M. Madeleine" = "Jean Valjean"). :func:`core.generation.entity_store.build_entities` stores the
result in the tables ``entities`` and ``mentions``.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from core.errors import ConfigError
from core.generation.bare_titles import join_bare_titles
from core.generation.entity_labels import key_words as _words
from core.generation.full_names import mention_counts, name_form_links, stray_namesakes
from core.generation.mentions import proper_noun_mentions, spacy_available, spacy_mentions
from core.generation.name_address import names_ner_missed, vocative_links
from core.generation.name_forms import (
    common_nouns,
    epithet_links,
    equated_names,
    first_name_host,
    is_demonym,
    mostly_after_prepositions,
    of_phrase,
    patronymic_links,
    written_full_names,
)
from core.generation.names import (
    FEMALE_TITLES,
    MALE_TITLES,
    PLACE_WORDS,
    Entity,
    Mention,
    fold,
    lower_counts,
    mostly_norp,
)
from core.generation.not_names import entity_label
from core.generation.shared_names import (
    KIN_APART,
    contains,
    family_people,
    group_sizes,
    hosts_of,
    kin_notes,
    kin_titled,
    other_person,
    own_surname,
)
from core.generation.surnames import (
    cooccur,
    family_surnames,
    held_apart,
    nickname_pairs,
    wives_and_daughters,
)


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, child: str, parent: str) -> None:
        self.parent[self.find(child)] = self.find(parent)


def cluster_mentions(
    mentions: list[Mention],
    lowers: Counter[str],
    *,
    min_mentions: int = 2,
    require_midsentence: bool = True,
    text: str = "",
) -> list[Entity]:
    """Filter candidate names and merge aliases into entities, most mentioned first (``text``:
    the document, for the words before each mention)."""
    by_key: dict[str, list[Mention]] = defaultdict(list)
    for m in mentions:
        if m.titles or not of_phrase(text, m.start, m.end):  # not "the Hill of Howth"
            by_key[fold(m.core)].append(m)
    by_key = stray_namesakes(by_key)  # "Varvara" by "Varvara Andreevna": not the princess
    kept: dict[str, list[Mention]] = {}
    counts = mention_counts(by_key)  # "Katerina Alexandrovna" with "... Levin": one name
    for key, ms in by_key.items():
        n, mid = counts[key]
        if n < min_mentions or (require_midsentence and mid == 0):
            continue
        if " " not in key and "-" not in key and not any(m.titles for m in ms):
            if lowers.get(ms[0].core.lower(), 0) > mid or key in PLACE_WORDS:
                continue
        kept[key] = ms
    places = {
        k
        for k, ms in by_key.items()
        if sum(m.label == "PLACE" for m in ms) * 2 >= len(ms)
        or mostly_after_prepositions([m.start for m in ms], text)
    }
    kept = {k: ms for k, ms in kept.items() if not mostly_norp(ms) and not is_demonym(k, places)}
    nouns = common_nouns({k: [m.start for m in v if not m.titles] for k, v in by_key.items()}, text)
    kept = {k: ms for k, ms in kept.items() if k not in nouns}
    uf = _UnionFind()
    reasons: dict[str, str] = {}
    size = {k: len(v) for k, v in kept.items()}
    for key in kept:
        if key.endswith("s") and key[:-1] in kept and size[key[:-1]] >= size[key]:
            uf.union(key, key[:-1])
            reasons[key] = "plural"
    words = {k: _words(k) for k in kept}
    for short, full in nickname_pairs(kept, words, size):
        uf.union(short, full)
        reasons[short] = "nickname, same surname, co-occur"
    seen = {k: _words(k) for k in by_key} | written_full_names(words, text)
    near = lambda a, b: cooccur(kept[a], kept[b], window=400)  # noqa: E731
    families = family_surnames(by_key)  # borne by several people: shared_names.py
    for name, into, why in own_surname(patronymic_links(words, seen, near), kept, words, families):
        uf.union(name, into)
        reasons.setdefault(name, why)
        reasons.setdefault(into, why)
    starts = {k: [m.start for m in ms] for k, ms in kept.items()}
    for name, epithet, why in epithet_links(starts, text, PLACE_WORDS):
        uf.union(name, epithet)
        reasons.setdefault(name, why)
    for nick, full, why in equated_names(words, text):  # "... Oblonsky—Stiva, as he was called"
        uf.union(nick, full)
        reasons.setdefault(nick, why)
    for name, _into, why in name_form_links(kept, words, seen, uf.union, uf.find, text):
        reasons[name] = why
    group_of = {k: uf.find(k) for k in kept}
    for pet, full, why in vocative_links(kept, words, group_of, text):  # "Dolly!" to her
        uf.union(pet, full)
        reasons.setdefault(pet, why)
        reasons.setdefault(full, why)
    group_size = group_sizes(kept, uf.find)
    absorbed: dict[str, list[str]] = defaultdict(list)
    surnames: set[str] = set()  # one-word names joining a fuller name that is not theirs first
    members: dict[str, list[str]] = defaultdict(list)
    for key in kept:
        members[uf.find(key)].append(key)
    for key in kept:
        if not words[key] or words[key][-1] in PLACE_WORDS:
            continue
        fuller = hosts_of(key, kept, words, uf.find, families, group_size)  # shared_names.py
        if any(m.titles for m in kept[key]):  # "Mme. Vauquer" is not the "Maison Vauquer"
            fuller = [k for k in fuller if not set(words[k]) & PLACE_WORDS]
        roots = {uf.find(k) for k in fuller} - {uf.find(key)}
        # a name already joined to another full name ("Oblonsky" = "Stepan Arkadyevitch") is not
        # moved on into a second person ("Pyotr Oblonsky") by a shared word
        roots = {r for r in roots if not other_person(key, members[uf.find(key)], r, words)}
        hosts = sorted(roots, key=lambda k: (-group_size[k], k))
        if len(words[key]) == 1 and all(words[k][0] == words[key][0] for k in fuller):
            by_host = {r: [m for k in fuller if uf.find(k) == r for m in kept[k]] for r in hosts}
            host = first_name_host(kept[key], by_host)
            if host is not None:
                absorbed[host].append(key)
        elif hosts and (len(hosts) == 1 or group_size[hosts[0]] >= 2 * group_size[hosts[1]]):
            absorbed[hosts[0]].append(key)
            if len(words[key]) == 1:
                surnames.add(key)
    root_of = {k: uf.find(k) for k in kept}  # the groups before any name joins a fuller one
    held: list[list[Mention]] = []  # "Mrs Malins" is not "Freddy Malins": surnames.py
    family_of: set[str] = set()  # roots of fuller names whose surname's titles were held apart
    for host, subs in absorbed.items():
        # "Marius" and "Pontmercy" both outnumber "Marius Pontmercy": only the larger joins it.
        bigger = sorted(
            (s for s in subs if size[s] > group_size[host]), key=lambda s: (-size[s], s)
        )
        for sub in subs:
            if sub not in bigger[1:]:
                if sub in surnames:  # its titled mentions may be a parent's or a wife's
                    host_ms = [m for k in members[host] for m in kept[k]]
                    own = [m for k in members[root_of[sub]] if len(words[k]) == 1 for m in kept[k]]
                    people = held_apart(own, host_ms, words[sub][0] in families, text)
                    held += people
                    family_of.update([host] if people else [])
                uf.union(sub, host)
                reasons.setdefault(sub, "part of the fuller name")
    apart = {id(m) for ms in held for m in ms}
    kin, kin_apart = kin_titled(kept, words, uf.find, apart)  # "Uncle George": shared_names.py
    apart |= {id(m) for ms in [*kin.values(), *kin_apart] for m in ms}
    family_of = {uf.find(h) for h in family_of | family_people(kept, words, families)}
    groups: dict[str, list[Mention]] = defaultdict(list)
    for key, ms in kept.items():
        groups[uf.find(key)].extend(m for m in ms if id(m) not in apart)
    for root, ms in kin.items():
        groups[uf.find(root)].extend(ms)
    entities: list[Entity] = []
    for root, ms in groups.items():
        him = [m for m in ms if set(m.titles) & MALE_TITLES]
        fem = [m for m in ms if set(m.titles) & FEMALE_TITLES and not set(m.titles) & MALE_TITLES]
        if him and fem and len(him) + len(fem) >= 3:  # Mr Conroy (once) and Mrs Conroy
            if len(him) == 1:  # one "M." (her late husband): her names' untitled mentions too
                hers = Counter(m.core for m in fem)
                fem += [m for m in ms if not m.titles and hers[m.core] > (m.core == him[0].core)]
            ids = {id(m) for m in fem}
            rest = [m for m in ms if id(m) not in ids]
            women = wives_and_daughters(fem)  # "Mrs Bennet" is not "Miss Bennet"
            entities.extend(_entity(w, by_title=True, text=text) for w in women)
            entities.append(_entity(rest, text=text))
        elif len(women := wives_and_daughters(ms)) > 1:  # "Lady Lucas" and "Miss Lucas"
            entities.extend(_entity(w, by_title=bool(w[0].titles), text=text) for w in women)
        else:
            entities.append(_entity(ms, text=text))
        if root in family_of:  # "Leo Dillon": a person's name, as "Mrs Dillon" shows
            entities[-1].label = "PERSON"
    for e in entities:
        e.merges = _merge_notes(e, reasons)
    kin_notes(entities, kin)
    alone = held + [p for p in kin_apart if len(p) >= min_mentions]
    for i, person in enumerate(alone):  # by title: "Mr Mooney", "Mrs Mooney", "Brother George"
        names = {e.name for e in entities}
        entities.append(_entity(person, by_title=True, text=text))
        if entities[-1].name in names:  # one name, one entity (a stored name is unique)
            free = [a for a in entities[-1].aliases if a not in names]
            entities[-1].name = free[0] if free else f"{entities[-1].name} (2)"
        why = "kept from the fuller name by its titles" if i < len(held) else KIN_APART
        apart_why = {fold(m.core): why for m in person}
        entities[-1].merges = _merge_notes(entities[-1], apart_why)
    entities = join_bare_titles(entities, text, mentions)  # "the Major": bare_titles.py
    entities.sort(key=lambda e: (-e.n_mentions, e.name))
    return entities


def _merge_notes(e: Entity, reasons: dict[str, str]) -> list[str]:
    """How the entity's other names joined it, e.g. "Hick Holt -> Hickman Holt (nickname ...)"."""
    notes = []
    for core in dict.fromkeys(m.core for m in e.mentions):
        if core == e.name:
            continue
        why = reasons.get(
            fold(core), "same name with a title" if fold(core) == fold(e.name) else ""
        )
        notes.append(f"{core} -> {e.name}" + (f" ({why})" if why else ""))
    titled = sorted({m.surface for m in e.mentions if m.titles and m.core == e.name})
    notes.extend(f"{t} -> {e.name} (title + name)" for t in titled[:3])
    return notes


def _entity(ms: list[Mention], by_title: bool = False, text: str = "") -> Entity:
    """Build an entity: canonical = most frequent name (``by_title``: a woman split off by her
    title, a person held apart by title: the most frequent titled surface)."""
    ms = sorted(ms, key=lambda m: m.start)
    cores = Counter(m.core for m in ms)
    surfaces = Counter(m.surface for m in ms)
    titled = Counter(m.surface for m in ms if m.titles)  # hers: "Mme. Vauquer", not "Vauquer"
    name = (titled if by_title and titled else cores).most_common(1)[0][0]
    if name.endswith("s") and name[:-1] in cores:
        name = name[:-1]  # "Croft", not the family's "the Crofts" merged into him (plural)
    if not by_title:  # prefer a full name ("Jean Valjean") used at least half as often
        best = _words(fold(name))
        fuller = [
            c
            for c, n in cores.most_common()
            if n * 2 >= cores[name] and contains(_words(fold(c)), best)
        ]
        name = fuller[0] if fuller else name
    aliases = [s for s, _ in (cores + surfaces).most_common() if s != name]
    label = entity_label(ms, name, text)
    return Entity(name=name, aliases=aliases, label=label, mentions=ms)


#: Books with more passages than this get NER on an evenly spaced sample of at most
#: ``SPACY_SAMPLE`` passages (every ``ceil(n / SPACY_SAMPLE)``-th: 188 of Les Misérables' 2,434);
#: the labels it votes propagate to every mention of the same name.
SPACY_FULL_MAX = 600
SPACY_SAMPLE = 200


def extract_entities(
    text: str,
    method: str = "auto",
    *,
    min_mentions: int = 2,
    spans: Iterable[tuple[int, int]] | None = None,
    progress: bool = False,
    stories: Sequence[int] | None = None,
) -> tuple[list[Entity], str]:
    """Entities of ``text`` and the method used (``proper-noun``, ``spacy`` or
    ``spacy-sampled``).

    ``method``: ``auto`` (spaCy if installed, else proper-noun), ``regex``/``proper-noun`` or
    ``spacy``. ``spans`` (passage offsets) are the units fed to spaCy. A long book (more than
    ``SPACY_FULL_MAX`` spans) is read by the proper-noun finder for mentions and by NER on an
    evenly spaced sample of spans for the labels (``spacy-sampled``): Les Misérables in well
    under a minute instead of several. ``stories`` (start offsets of the stories of a
    collection) clusters each story's mentions on its own: no merge across a story boundary.
    """
    if method not in ("auto", "regex", "proper-noun", "spacy"):
        raise ConfigError(f"unknown entity method {method!r}: use auto, regex or spacy")
    if method == "auto":
        method = "spacy" if spacy_available() else "proper-noun"
    lowers = lower_counts(text)
    if method == "spacy":
        if spans is None:
            spans = [
                (m.start(), m.end())
                for m in re.finditer(r"\S(?:.*?\S)?(?=\n\s*\n|\s*\Z)", text, re.S)
            ]
        spans = list(spans)
        if len(spans) > SPACY_FULL_MAX:
            step = -(-len(spans) // SPACY_SAMPLE)
            ner = spacy_mentions(text, spans[::step], lowers, progress=progress)
            votes: dict[str, Counter[str]] = defaultdict(Counter)
            for m in ner:
                votes[fold(m.core)][m.label] += 1
            found = proper_noun_mentions(text, lowers)
            for m in found:
                if m.label == "PERSON":
                    m.cue = "PERSON"
                vote = votes.get(fold(m.core))
                if vote:
                    m.label = vote.most_common(1)[0][0]
            return _by_story(found, stories, lowers, min_mentions, True, text), "spacy-sampled"
        found = spacy_mentions(text, spans, lowers, progress=progress)
        found += names_ner_missed(found, proper_noun_mentions(text, lowers), text, lowers)
        found.sort(key=lambda m: m.start)
        return _by_story(found, stories, lowers, min_mentions, False, text), "spacy"
    found = proper_noun_mentions(text, lowers)
    return _by_story(found, stories, lowers, min_mentions, True, text), "proper-noun"


def _by_story(  # noqa: PLR0913
    found: list[Mention],
    stories: Sequence[int] | None,
    lowers: Counter[str],
    min_mentions: int,
    midsentence: bool,
    text: str,
) -> list[Entity]:
    """:func:`cluster_mentions` over each story's mentions (``stories``: start offsets; none =
    one story), most mentioned first: "Alice" of two stories stays two entities, named "Alice
    (story 1)" and "Alice (story 2)" (the plain name their first alias)."""
    starts = sorted(set(stories or [])) or [0]
    parts: dict[int, list[Mention]] = defaultdict(list)
    for m in found:
        parts[max(0, bisect.bisect_right(starts, m.start) - 1)].append(m)
    found_in = {
        k: cluster_mentions(
            ms, lowers, min_mentions=min_mentions, require_midsentence=midsentence, text=text
        )
        for k, ms in sorted(parts.items())
    }
    names = Counter(e.name for es in found_in.values() for e in es)
    for k, es in found_in.items():
        for e in es:
            if names[e.name] > 1:  # one name in several stories: one entity per story
                e.aliases = [e.name, *e.aliases]
                e.name = f"{e.name} (story {k + 1})"
    entities = [e for es in found_in.values() for e in es]
    entities.sort(key=lambda e: (-e.n_mentions, e.name))
    return entities
