"""The terms of a question: the words worth searching for and weighing a sentence by.

A question's words less those that only make it a question ("what", "does", "how long"), its
English words that are also Python's keywords kept only where it names them as keywords ("the in
operator") or asks about them bare ("What does with do?", "What does the as keyword do?",
`keywords_asked`: a text then has such a keyword only where it names it, and the search looks
for the phrases that do, `naming_phrases`: "with statement"; "boolean operation" of "What does
and do?"; "followed by as" of "What does as do?", where the documentation writes it bare,
`written_bare`), and the words of the operators it names (``==``: "equality comparison"). Each
word is matched by its stem (`stem`: "keeps" and "kept" are "keep", "serialise" is
"serialize").
A question none of whose words names anything ("What?", "How does it work?") has nothing to
look for (`names_nothing`).
"""

from __future__ import annotations

import builtins
import functools
import keyword
import re

from signoff.research.asks import none_given
from signoff.research.spellings import american

__all__ = ["keywords_asked", "names_nothing", "naming_phrases", "operation_named",
           "operators_in", "query_terms", "question_terms", "stem", "written_bare"]

_QUESTION_WORDS = frozenset({
    "a", "an", "the", "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
    "does", "do", "did", "doing", "done", "can", "could", "would", "should", "will", "shall",
    "may", "might", "must",
    "i", "me", "my", "we", "you", "your", "it", "its", "this", "that", "these", "those",
    "of", "to", "about", "please", "tell", "explain", "mean", "means", "there", "are", "was",
    "were", "be", "been", "use", "used", "using", "work", "works", "happen", "happens",
    "difference", "differences", "between", "purpose", "into", "onto", "way", "ways", "kind", "kinds",
    "get", "make", "want", "need", "python", "s", "t", "many", "much",
})  # fmt: skip
"""Words of a question that say nothing of its subject (its question words, its auxiliary and
modal verbs: "How many steps may a task take?" is not about what may be); Python's keywords
are kept, and so is "is" (an operator)."""

_NAMING_NOTHING: frozenset[str] = (_QUESTION_WORDS - {"python"}) | frozenset({
    "he", "him", "his", "she", "her", "hers", "they", "them", "their", "theirs", "us", "our",
    "ours", "mine", "yours", "itself", "myself", "yourself", "themselves", "one", "ones",
    "something", "anything", "everything", "nothing", "someone", "anyone", "everyone", "thing",
    "things", "stuff", "some", "every", "each", "other", "another", "such", "same", "on", "at",
    "by", "like", "up", "out", "off", "over", "than", "then", "so", "but", "also", "just",
    "really", "here", "now", "again", "else", "very", "too", "am", "has", "have", "had",
    "having", "being", "go", "goes", "going", "went", "come", "comes", "take", "takes", "took",
    "give", "gives", "put", "let", "keep", "keeps", "see", "say", "says", "know", "think",
})  # fmt: skip
"""Words that name nothing on their own, of which a question that names nothing to look for is
made (`names_nothing`): its question words, and the other words of no subject — pronouns
("they"), determiners ("some"), prepositions ("on"), adverbs ("again") and light verbs ("have",
"go", "take"), which make a question of whatever it names, and of nothing when it names none."""

_PYTHON_NAMES: frozenset[str] = frozenset(keyword.kwlist) | frozenset(dir(builtins))
"""The names Python gives its keywords and builtins ("any", "all", "help"): a word that is one
names something."""

_SYMBOL = re.compile(r"[^\w\s?？!.,;'\"‘’“”`–—…]")
"""A character of a question other than a word's, a space or a sentence's punctuation: it
names something ("@", "%", "[]")."""

_ASKING: frozenset[str] = frozenset({"what", "which", "who", "when", "where", "why", "how"})
"""The words that open a question that asks after something (not whether: "Is it?")."""

_MEASURES = frozenset({"long", "fast", "quickly", "slow", "slowly", "often", "far", "big",
                       "large", "small", "old", "soon"})
"""Words that, after "how", ask for a measure ("how long", "how fast"): they say what kind of
answer is wanted, not what the question is about ("long" stays a term elsewhere: "long lines")."""

_TAKING = frozenset({"take", "takes", "took"})
"""The verb of a question of time ("how long does it take"), left out with its "how long"; of a
count ("how many arguments does range take?"), searched for but not weighed (`question_terms`):
"Argument Clinic's goal is to take over…" is not about range."""

_OPERATORS = {
    "**=": "augmented assignment", "//=": "augmented assignment", ">>=": "augmented assignment",
    "<<=": "augmented assignment", "==": "equality comparison", "!=": "equality comparison",
    "<=": "comparison", ">=": "comparison", "**": "power", "//": "floor division",
    "<<": "shifting", ">>": "shifting", "+=": "augmented assignment",
    "-=": "augmented assignment", "*=": "augmented assignment", "/=": "augmented assignment",
    "%=": "augmented assignment", "&=": "augmented assignment", "|=": "augmented assignment",
    "^=": "augmented assignment", ":=": "assignment expression", "->": "annotation",
}  # fmt: skip
"""Operators a question may name (matched in sentences as written), and the words the
documentation uses for them (searched for, since a search sees no punctuation)."""

_OPERATOR_WORDS: dict[str, tuple[str, ...]] = {o: tuple(w.split()) for o, w in _OPERATORS.items()}

_ENGLISH_KEYWORDS: frozenset[str] = frozenset({"and", "or", "not", "in", "is", "if", "for", "with", "as",
                               "from", "while"})
"""Python's keywords that are also English words: terms only when the question names them."""

_NAMED_AS_WRITTEN = frozenset(k for k in keyword.kwlist if k.islower()) - _ENGLISH_KEYWORDS
"""Python's other keywords ("pass", "return", "yield", "break"): a text has one where it
writes it as the keyword is written; another form of the word ("passed by value", "it
returns") is the English word, a kin of the keyword."""

_USED_AS_ENGLISH: frozenset[str] = frozenset({"pass", "return", "raise", "break", "continue", "global",
                              "yield", "assert"})
"""Python's other keywords that the documentation also writes as English words in their own
sense ("pass a code object", "Return the…", "raise this exception", "global variables"):
asked about bare ("What does pass do?", `keywords_asked`), a text has one where it names it as
the keyword, as it has a keyword that is also an English word ("with")."""

_ASKING_VERBS: frozenset[str] = frozenset({"does", "did"})
_BEING: frozenset[str] = frozenset({"is", "was"})
_BEING_AFTER: frozenset[str] = frozenset({"used", "for", "meant"})
"""What follows a keyword asked about bare after "is" ("What is with used for?", "What is
yield for?", "How is pass meant to be used?")."""

_OPERATIONS: dict[str, str] = {"and": "boolean operation", "or": "boolean operation",
                               "not": "boolean operation", "in": "membership test",
                               "is": "identity comparison"}
"""What the documentation calls the operations of the keywords that are operators ("6.11.
Boolean operations", "Membership test operations", "Identity comparisons"): a heading that
names the operation names them, in the sentences under it where they are written bare ("The
expression x and y first evaluates x"); searched for beside the keyword."""

_OPERANDS: dict[str, str] = {"and": "x and y", "or": "x or y", "not": "not x", "in": "x in s",
                             "is": "x is y"}
"""How the documentation writes those keywords between operands ("The expression x or y
first evaluates x", "x in s evaluates to True if…"): searched for beside the keyword (a
page's "sum of x and y" is English, so a text does not name the keyword by it)."""

_CLAUSE_PHRASES: dict[str, tuple[str, ...]] = {
    "as": ("followed by as", "following as", "using as", "after as")}
"""How the documentation writes bare the keywords that head a clause of other statements,
before the name the clause binds (as, of import, with and except: "If the module name is
followed by as, then the name following as is bound…", "assigned using as target", "after as
in a with statement"): searched for beside the keyword, as `_OPERANDS` are."""

_CLAUSE_WRITTEN: dict[str, str] = {
    "as": r"\b(?:followed\s+by|following|using|after)\s+as(?=\s*[,.;:)]|\s+(?:is|in|targets?)\b)"}
"""Where a text writes one of those keywords bare as the keyword (`written_bare`): after the
words that lead to it, before a pause or the word that says what it binds ("followed by as,
then", "the name following as is bound", "using as target", "after as in a with statement");
the English word goes on ("followed by as many", "using as little memory as")."""

_NAMING_BEFORE = frozenset({"the", "a", "an", "between", "operator", "operators", "keyword",
                            "keywords"})
_NAMING_AFTER: frozenset[str] = frozenset({
    "operator", "operators", "statement", "statements", "keyword", "keywords", "loop", "loops",
    "clause", "clauses", "expression", "expressions", "test", "tests", "block", "blocks"})
_NAMING_AFTER_ONE: tuple[str, ...] = tuple(sorted(w for w in _NAMING_AFTER if not w.endswith("s")))
"""Those of `_NAMING_AFTER` that name one ("with statement", not "with statements")."""

_SUFFIXES = ("ational", "ations", "ation", "itions", "ition", "ments", "ment", "ings", "ing",
             "ness", "ities", "ity", "ies", "ied", "ed", "es", "ly", "al", "s", "e")
"""Endings taken off a word to find its stem (the first that leaves a stem of 4 letters, or of 3
for a plural's s: "owner" and "notation" stay whole, "files" is "file"). An "-er" stays: it
makes another word ("handler" of handle, "parser" of parse), and the verbs that end in it keep
their forms together ("register", "registered", "registers"); a misspelt "generater" is no form
of generate."""


_IRREGULAR_FORMS = """
    arise arose arisen; become became; begin began begun; bend bent; bring brought; build built;
    burn burnt; buy bought; catch caught; choose chose chosen; come came; deal dealt; draw drew
    drawn; fall fell fallen; feed fed; find found; forbid forbade forbidden; foresee foresaw
    foreseen; forget forgot forgotten; get got gotten; give gave given; go goes went gone; grow
    grew grown; hear heard; hide hid hidden; hold held; keep kept; know knew known; lead led;
    learn learnt; lend lent; lose lost; make made; mean meant; meet met; mistake mistook
    mistaken; overcome overcame; override overrode overridden; overtake overtook overtaken;
    overwrite overwrote overwritten; pay paid; prove proven; rebuild rebuilt; redo redid redone;
    rewrite rewrote rewritten; run ran; say said; see saw seen; seek sought; sell sold; send
    sent; shake shook shaken; show shown; shrink shrank shrunk; sink sank sunk; sleep slept;
    speak spoke spoken; spend spent; spin spun; stand stood; steal stole stolen; stick stuck;
    strike struck; sweep swept; swing swung; take took taken; teach taught; tear tore torn; tell
    told; think thought; throw threw thrown; understand understood; undertake undertook
    undertaken; undo undid undone; uphold upheld; wake woke woken; wear wore worn; weave wove
    woven; withdraw withdrew withdrawn; withhold withheld; write wrote written;
    child children; index indices; matrix matrices; vertex vertices; appendix appendices
"""
"""English words whose other forms no ending tells, each a word and then its forms, to a
semicolon: an irregular verb's past and past participle, an irregular plural. Left out are the
forms as often another word ("left", "bound", "lay", "bit", "felt", the "won" of "won't") or a
keyword's ("broke" of break)."""

_BASE_OF: dict[str, str] = {form: forms.split()[0] for forms in _IRREGULAR_FORMS.split(";")
                            for form in forms.split()[1:]}
"""Each irregular form of `_IRREGULAR_FORMS`, with the word it is a form of ("kept": "keep")."""


def _base_of(word: str) -> str:
    """The word that `word` (in lower case) is an irregular form of ("kept": "keep"), or
    `word`. (A function, so that the effects analysis of the research tools, which call `stem`,
    knows that what it gives is a string.)"""
    return _BASE_OF.get(word, word)


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The stem of `word`: lower case, an irregular form read as its word ("kept" as "keep",
    "taken" as "take", "indices" as "index"), in American spelling ("serialise" as
    "serialize": `signoff.research.spellings`), its ending taken off ("definitions" → "defin";
    "class" and "status" keep their s, as "classes" and "statuses" do)."""
    base = american(_base_of(word.lower()))
    for suffix in _SUFFIXES:
        if base.endswith(suffix) and len(base) - len(suffix) >= (3 if suffix == "s" else 4):
            if suffix == "s" and base.endswith(("ss", "us", "is")):
                return base  # "class", "status", "analysis": as "classes" keeps them
            return base[: -len(suffix)]
    return base


def query_terms(question: str) -> list[str]:
    """The words of `question` worth searching for, lower case, each once, in order: the
    words that only make it a question left out (and a keyword that is also an English word,
    unless the question names it), and the names of the operators it names added."""
    words = [w.lower() for w in re.findall(r"\w+", _uncontracted(question))]
    kept = _searched_words(question, words) or words
    for operator in operators_in(question):
        kept.extend(_OPERATOR_WORDS[operator])
    return list(dict.fromkeys(kept))


def _searched_words(question: str, words: list[str]) -> list[str]:
    """The words of `question` (`words`, lower case) worth searching for, none added: those
    that only make it a question, the measures asked after "how" and the keywords it names
    only as English left out."""
    named = _named_keywords(question, words)
    measures = {n for n, w in enumerate(words) if n and words[n - 1] == "how" and w in _MEASURES}
    if any(words[n] == "long" for n in measures):
        measures |= {n for n, w in enumerate(words) if w in _TAKING}
    naming = {n + 1 for n in named if n > 1 and tuple(words[n - 2:n + 2]) in _KEYWORD_NAMED}
    return [w for n, w in enumerate(words) if w not in _QUESTION_WORDS and n not in measures
            and (w not in _ENGLISH_KEYWORDS or n in named) and n not in naming]


def names_nothing(question: str) -> bool:
    """Whether `question` names nothing to look for: each of its words only makes it a
    question (`_QUESTION_WORDS`, but for "python", which names the language), or names nothing
    on its own (`_NAMING_NOTHING`: a pronoun, a determiner, a preposition, a light verb), as
    "What?" and "How does it work?" do; and it names no operator, nor any other symbol ("What
    does @ do?" names the @), nor a keyword that is also English as what "does" or "is … used
    for" asks of (`_asked_bare`: "What does with do?", "Does in copy?", "What is with used
    for?"; not "What if it does not exist?"). A word that is a Python name ("any", "all") names
    that."""
    if operators_in(question) or _SYMBOL.search(question):
        return False
    words = [w.lower() for w in re.findall(r"\w+", _uncontracted(question))]
    if _asked_bare(words):
        return False  # ("What does with do?": no preposition is what "does" asks of)
    return "python" not in words and all(
        w in _NAMING_NOTHING and w not in _PYTHON_NAMES for w in _searched_words(question, words))


_CONTRACTED = re.compile(r"\b(?:(?P<can>ca)|(?P<will>wo)|(?P<shall>sha)|(?P<verb>\w+))n[’']t\b",
                         re.IGNORECASE)


def _uncontracted(question: str) -> str:
    """`question` with its verbs' "n't" taken off ("isn't": is, "doesn't": does, "can't": can),
    so that no "isn" or "doesn" is searched for, nor found missing from the sources."""
    return _CONTRACTED.sub(lambda m: m["verb"] or next(k for k in ("can", "will", "shall")
                                                      if m[k]), question)


def keywords_asked(question: str) -> frozenset[str]:
    """The keywords that `question` asks about bare, as what it asks of ("What does with do?",
    "How does pass work?", "What is with used for?"), of those the documentation also writes
    as English words (`_ENGLISH_KEYWORDS`, `_USED_AS_ENGLISH`): a text has one where it names
    it as the keyword ("the with statement", "the ``pass`` keyword"), not where it writes the
    English word ("pass a code object")."""
    words = [w.lower() for w in re.findall(r"\w+", _uncontracted(question))]
    return frozenset(words[n] for n in _asked_bare(words))


def naming_phrases(question: str) -> list[str]:
    """The phrases that name as keywords the keywords `question` asks about bare
    (`keywords_asked`: "with statement", "with block", "keyword with" of "What does with
    do?"; "boolean operation" and "x and y" of "What does and do?": `_OPERATIONS`,
    `_OPERANDS`), to search for beside the keyword: the page that names the keyword as one is
    about it, where another only has the word ("Graphical User Interfaces with Tk")."""
    phrases: list[str] = []
    keyword: str  # (declared: the effect analysis of an installed signoff reads no constant's
    # value, and took a method called on a word of unknown type for anything: `_NAMING_AFTER_ONE`)
    for keyword in sorted(keywords_asked(question)):
        phrases += [f"{keyword} {word}" for word in _NAMING_AFTER_ONE]
        phrases.append(f"keyword {keyword}")
        if keyword in _OPERATIONS:  # ("boolean operation": "6.11. Boolean operations")
            phrases += [f"operator {keyword}", _OPERATIONS[keyword], _OPERANDS[keyword]]
        phrases += _CLAUSE_PHRASES.get(keyword, ())  # ("followed by as")
    return phrases


def written_bare(keyword: str) -> str:
    """The pattern of where a text writes `keyword` bare as the keyword, where it heads a
    clause of other statements ("followed by as, then…" of as: `_CLAUSE_WRITTEN`); else ""."""
    return _CLAUSE_WRITTEN.get(keyword, "")


def operation_named(keyword: str) -> str:
    """The pattern of the name of the operation of `keyword`, where it is an operator
    ("Boolean operations" of and: `_OPERATIONS`), which names it; else ""."""
    name = _OPERATIONS.get(keyword)
    return r"\b" + r"\s+".join(name.split()) + r"s?\b" if name else ""


def _asked_bare(words: list[str]) -> set[int]:
    """The places in `words` (a question's, lower case) of the keywords it asks about bare:
    what "does" asks of, right after it, before the verb or at the end ("What does with do?",
    "Does in copy?", "How does pass work?"; not the "not" of "What if it does not exist?", nor
    the "if" of "What does if __name__ == '__main__' mean?", a name's test), or what "is" asks
    of, before "used" or "for" ("What is with used for?"; not "What is in a list?")."""
    keywords = _ENGLISH_KEYWORDS | _USED_AS_ENGLISH
    asked = set()
    for n, w in enumerate(words):
        if n > 1 and _KEYWORD_NAMED.get(tuple(words[n - 2:n + 2])) == w:  # ("the as keyword")
            asked.add(n)
        if not n or w not in keywords or not (n == 1 or words[n - 2] in _ASKING):
            continue
        after = words[n + 1] if n + 1 < len(words) else ""
        verb = not after or after in _NAMING_NOTHING or (  # (not a name: "if __name__")
            after.isalpha() and after not in _PYTHON_NAMES and after not in keywords)
        if (words[n - 1] in _ASKING_VERBS and verb) or (
                words[n - 1] in _BEING and after in _BEING_AFTER):
            asked.add(n)
    return asked


_KEYWORD_NAMED: dict[tuple[str, ...], str] = {
    (verb, "the", k, "keyword"): k for verb in _ASKING_VERBS | _BEING
    for k in _ENGLISH_KEYWORDS | _USED_AS_ENGLISH}
"""A keyword that a question asks about as "the … keyword" ("What does the as keyword do?",
"What is the pass keyword?"), after the words before it: asked about bare, "keyword" only
saying what it is (`_searched_words`)."""


def _named_keywords(question: str, words: list[str]) -> set[int]:
    """The places of the keywords that `question` names as keywords ("the in operator",
    "a `with` block", "between is and ==", "What does with do?": `_asked_bare`), not as
    English ("in a list")."""
    quoted = {w.lower() for w in re.findall(r"[\"'`“‘](\w+)[\"'`”’]", question)}
    named = {n for n, w in enumerate(words) if w in _ENGLISH_KEYWORDS and (
        w in quoted or (n > 0 and words[n - 1] in _NAMING_BEFORE)
        or (n + 1 < len(words) and words[n + 1] in _NAMING_AFTER))}
    grown = True
    while grown:  # a keyword beside a named one is named too ("operators and, or and not")
        more = {n for n, w in enumerate(words) if w in _ENGLISH_KEYWORDS and n not in named
                and (n - 1 in named or n + 1 in named)}
        named |= more
        grown = bool(more)
    return named | _asked_bare(words)  # (not grown: the "is" of "What is with used for?")


def operators_in(question: str) -> list[str]:
    """The operators `question` names, longest first."""
    found: list[str] = []
    rest = question
    for operator in sorted(_OPERATORS, key=len, reverse=True):
        if operator in rest:
            found.append(operator)
            rest = rest.replace(operator, " ")
    return found


def question_terms(question: str) -> list[str]:
    """The terms a sentence is weighed by: the question's words (less the words only searched
    for an operator's sake, the verb of a count, `_TAKING`, and the words that ask what is done
    when nothing is given, `signoff.research.asks.none_given`) and the operators it names."""
    operators = operators_in(question)
    named = {w for o in operators for w in _OPERATOR_WORDS[o]}
    words = [w.lower() for w in re.findall(r"\w+", question)]
    verb = _TAKING if re.search(r"\bhow\s+many\b", question, re.IGNORECASE) else frozenset()
    given = set(none_given(question).split())  # ("with no arguments": what kind of answer)
    return [t for t in query_terms(question) if (t not in named or t in words)
            and t not in verb and t not in given] + operators
