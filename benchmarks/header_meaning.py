"""Which header a table question means when no word of it names one: ``meant_header`` against its baselines.

38 questions over eight small tables (one row each; labels written by hand for this benchmark, not
by the code measured), each naming its row by one cell ("A Brief History of Time", "Japan") and
asking for a column in other words than its header ("who wrote": Author, "how many people live in":
Population). As the XLSX locator asks it, the words of the row's given cell are taken out of the
question, and the given cell and a '#' column are no candidates.

Printed, for each way of choosing: how many questions get a cell, how many of those are the asked
one, and how many get the row (no choice):

* ``meant_header`` at its ``MEANT_MARGIN`` (the packaged e5 model; the host's function);
* the same at no margin (always the best header);
* ``named_header(inflected=True)`` (words alone: what the locator had before);
* the given cell (what the locator cited before when a value held the question's words).

    .venv/bin/python benchmarks/header_meaning.py
"""

from __future__ import annotations

import re

TABLES: dict[str, tuple[list[str], list[str]]] = {
    "books": (["Title", "Author", "Publisher", "Year"], ["A Brief History of Time", "Stephen Hawking", "Bantam Books",
                                                         "1988"]),
    "catalog": (["#", "Genre", "Sub-Genre", "Title", "Author", "Publisher", "Added"],
                ["2", "Non-fiction", "Science", "A Brief History of Time", "Stephen Hawking", "Bantam Books", "1988"]),
    "sales": (["Product", "Date", "Quantity", "Revenue"], ["Widget", "2023-05-01", "120", "4,100"]),
    "staff": (["Name", "Department", "Salary", "Start date"], ["Maria Lopez", "Finance", "72,000", "2019-03-04"]),
    "geo": (["Country", "Capital", "Population", "Currency"], ["Japan", "Tokyo", "125 million", "Yen"]),
    "film": (["Film", "Director", "Release year", "Box office", "Studio"],
             ["Jaws", "Steven Spielberg", "1975", "$476 million", "Universal"]),
    "drugs": (["Drug", "Indication", "Dose", "Manufacturer", "Side effects"],
              ["Aspirin", "Pain relief", "500 mg", "Bayer", "Stomach bleeding"]),
    "flights": (["Flight", "Origin", "Destination", "Departure", "Gate"], ["LH 400", "Frankfurt", "New York", "10:35",
                                                                           "B44"]),
}
QUESTIONS: list[tuple[str, str, str]] = [
    ("books", "who wrote A Brief History of Time", "Author"),
    ("books", "by whom was A Brief History of Time written", "Author"),
    ("books", "when did A Brief History of Time come out", "Year"),
    ("books", "which company put out A Brief History of Time", "Publisher"),
    ("books", "what did Stephen Hawking write", "Title"),
    ("books", "who is the writer of A Brief History of Time", "Author"),
    ("books", "which book did Bantam Books print", "Title"),
    ("catalog", "who wrote A Brief History of Time", "Author"),
    ("catalog", "what kind of book is A Brief History of Time", "Genre"),
    ("catalog", "when was A Brief History of Time catalogued", "Added"),
    ("catalog", "who released A Brief History of Time", "Publisher"),
    ("catalog", "what did Stephen Hawking write", "Title"),
    ("sales", "how many Widget were sold", "Quantity"),
    ("sales", "how much money did Widget bring in", "Revenue"),
    ("sales", "when was Widget sold", "Date"),
    ("sales", "what was the income from Widget", "Revenue"),
    ("sales", "how many units of Widget", "Quantity"),
    ("staff", "how much does Maria Lopez earn", "Salary"),
    ("staff", "when did Maria Lopez join", "Start date"),
    ("staff", "which team is Maria Lopez in", "Department"),
    ("staff", "what is Maria Lopez paid", "Salary"),
    ("geo", "how many people live in Japan", "Population"),
    ("geo", "what money do they use in Japan", "Currency"),
    ("geo", "main city of Japan", "Capital"),
    ("geo", "how many inhabitants does Japan have", "Population"),
    ("film", "who made Jaws", "Director"),
    ("film", "how much did Jaws earn", "Box office"),
    ("film", "when did Jaws come out", "Release year"),
    ("film", "who produced Jaws", "Studio"),
    ("film", "who directed Jaws", "Director"),
    ("drugs", "what is Aspirin used for", "Indication"),
    ("drugs", "how much Aspirin should I take", "Dose"),
    ("drugs", "who makes Aspirin", "Manufacturer"),
    ("drugs", "what are the risks of Aspirin", "Side effects"),
    ("flights", "where does LH 400 go", "Destination"),
    ("flights", "when does LH 400 leave", "Departure"),
    ("flights", "where does LH 400 come from", "Origin"),
    ("flights", "which gate for LH 400", "Gate"),
]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def main() -> None:
    from mnote_kr.citations.text.tablerows import MEANT_MARGIN, meant_header, named_header

    ways = {f"meant_header, margin {MEANT_MARGIN}": lambda q, cells, given: meant_header(q, cells),
            "meant_header, no margin": lambda q, cells, given: meant_header(q, cells, margin=0.0),
            "named_header (words)": lambda q, cells, given: named_header(q, cells, inflected=True),
            "the given cell": lambda q, cells, given: given}
    for name, choose in ways.items():
        cells_given = right = 0
        for table, question, want in QUESTIONS:
            heads, values = TABLES[table]
            given = max(range(len(values)), key=lambda i: len(_words(values[i]) & _words(question)))
            rest = " ".join(w for w in re.findall(r"[a-z0-9]+", question.lower()) if w not in _words(values[given]))
            cells = [(h, h) for i, h in enumerate(heads) if i != given and h != "#"]
            got = choose(rest, cells, heads[given])
            cells_given += got is not None
            right += got == want
        print(f"{name:28} a cell for {cells_given:2} of {len(QUESTIONS)}, the asked one {right:2} "
              f"({right / max(cells_given, 1):.0%} of those); the row for {len(QUESTIONS) - cells_given}")


if __name__ == "__main__":
    main()
