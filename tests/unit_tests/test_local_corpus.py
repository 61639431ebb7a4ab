"""The local corpus: indexing, incremental updates, ranking, reading and text extraction."""

from __future__ import annotations

import hashlib
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from deep_research.errors import CorpusNotFoundError, SourceError
from deep_research.sources.html import extract_html_file
from deep_research.sources.inventory import summary_line
from deep_research.sources.local import (
    IndexStats,
    LocalCorpus,
    default_index_path,
    fts_text,
    reading_language,
    translation_key,
    translation_path,
)
from deep_research.text.words import sentences

# Under 250 characters of text: trafilatura's own rescue of short pages would bring back the
# navigation, the header and the footer.
HTML_PAGE = """<!doctype html>
<html lang="en"><head><title>Cell &amp; Energy</title>
<style>body { color: stylered }</style><script>var leaked = "scriptsecret";</script></head>
<body>
<nav><a href="/">navlink home</a></nav>
<header><p>headerbanner</p></header>
<main>
  <h1>Cellular respiration</h1>
  <p>Cells   <b>break</b> down
     glucose.</p>
  <ul><li>Glycolysis</li><li><p>Krebs cycle</p></li></ul>
  <h2>ATP yield</h2>
  <p>About 30 ATP per glucose.</p>
  <aside>asidetrivia</aside><form><label>formlabel</label></form>
  <noscript>noscriptnotice</noscript>
</main>
<footer>footercopyright</footer>
</body></html>
"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _fillers(root: Path, count: int = 6) -> None:
    # BM25 gives terms found in more than half the documents almost no weight.
    for i in range(count):
        _write(root / "filler" / f"f{i}.txt", f"Filler {i}\nGardening and cooking soups, note {i}.")


@pytest.fixture
def corpus_root(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    _write(root / "photo.md", "# Photosynthesis\n\nPlants turn sunlight into sugar.\n")
    _write(
        root / "notes" / "mito.txt", "Mitochondria\nThe mitochondria is the cell's powerhouse.\n"
    )
    _write(root / "notes" / "resp.html", HTML_PAGE)
    _fillers(root)
    return root


@pytest.fixture
def corpus(corpus_root: Path, tmp_path: Path) -> LocalCorpus:
    return LocalCorpus(corpus_root, tmp_path / "data" / "index.sqlite")


def _rows(index_path: Path) -> dict[str, tuple[int, str, str]]:
    with closing(sqlite3.connect(index_path)) as conn:
        rows = conn.execute("SELECT path, id, sha256, indexed_at FROM documents").fetchall()
    return {Path(path).name: (rowid, sha, at) for path, rowid, sha, at in rows}


def _check_fts(index_path: Path, *gone_terms: str) -> None:
    """Check the FTS index, and that it holds no entry for stemmed terms of replaced text."""
    with closing(sqlite3.connect(index_path)) as conn:
        conn.execute("INSERT INTO documents_fts (documents_fts) VALUES ('integrity-check')")
        conn.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, documents_fts, row)")
        for term in gone_terms:
            assert conn.execute("SELECT doc FROM vocab WHERE term = ?", (term,)).fetchall() == []


async def _urls(corpus: LocalCorpus, query: str) -> list[str]:
    return [result.url for result in await corpus.search(query, 10)]


async def test_index_reads_markdown_text_and_html(corpus: LocalCorpus, corpus_root: Path) -> None:
    stats = corpus.index()

    assert stats == IndexStats(added=9, updated=0, removed=0, unchanged=0)
    assert corpus.index_path.is_file()
    expected = {
        "photosynthesis": ("photo.md", "Photosynthesis", "text/markdown"),
        "powerhouse": ("notes/mito.txt", "Mitochondria", "text/plain"),
        "glycolysis": ("notes/resp.html", "Cell & Energy", "text/html"),
    }
    for query, (relative, title, content_type) in expected.items():
        [result] = await corpus.search(query, 5)
        url = (corpus_root / relative).resolve().as_uri()
        assert (result.url, result.title, result.provider) == (url, title, "local")
        assert result.score > 0
        assert (await corpus.read(result.url)).content_type == content_type


async def test_search_indexes_lazily_and_skips_hidden_and_other_files(
    corpus_root: Path, tmp_path: Path
) -> None:
    _write(corpus_root / ".hidden.md", "# Zeppelin\n")
    _write(corpus_root / ".git" / "notes.md", "# Zeppelin\n")
    _write(corpus_root / "data.csv", "zeppelin,1\n")
    corpus = LocalCorpus(corpus_root, tmp_path / "deep" / "er" / "index.sqlite")

    assert await corpus.search("photosynthesis", 5)  # no explicit index() call
    assert await corpus.search("zeppelin", 5) == []


async def test_best_match_ranks_first(tmp_path: Path) -> None:
    root = tmp_path / "c"
    _write(root / "once.txt", "Notes\nA glacier appears here once among other words.")
    _write(root / "often.txt", "Ice\nGlacier retreat: each glacier loses mass, glacier by glacier.")
    _fillers(root)
    corpus = LocalCorpus(root, tmp_path / "i.sqlite")

    results = await corpus.search("glacier retreat", 5)

    assert [Path(r.url).name for r in results] == ["often.txt", "once.txt"]
    assert results[0].score > results[1].score > 0


async def test_title_counts_more_than_body(tmp_path: Path) -> None:
    root = tmp_path / "c"
    _write(root / "titled.md", "# Volcano eruptions\n\nNotes on mountains and rocks, with geology.")
    _write(
        root / "body.md", "# Geology notes\n\nA volcano erupts. Every volcano has a volcano vent."
    )
    _fillers(root)
    corpus = LocalCorpus(root, tmp_path / "i.sqlite")

    results = await corpus.search("volcano", 5)

    # With equal column weights the body's three mentions would win.
    assert [Path(r.url).name for r in results] == ["titled.md", "body.md"]


async def test_snippet_is_plain_text(tmp_path: Path) -> None:
    root = tmp_path / "c"
    words = " ".join(f"word{i}" for i in range(80))
    _write(root / "long.md", f"# Long\n\n{words} *needle* {words}\n\n## Next\n\n{words}")
    corpus = LocalCorpus(root, tmp_path / "i.sqlite")

    [result] = await corpus.search("needle", 5)

    assert "needle" in result.snippet
    assert result.snippet.startswith("…") and result.snippet.endswith("…")
    assert "\n" not in result.snippet and "<" not in result.snippet
    assert len(result.snippet.split()) <= 32


async def test_reindex_without_changes_rewrites_nothing(corpus: LocalCorpus) -> None:
    corpus.index()
    with closing(sqlite3.connect(corpus.index_path)) as conn, conn:
        conn.execute("UPDATE documents SET indexed_at = 'sentinel'")

    stats = corpus.index()

    assert stats == IndexStats(added=0, updated=0, removed=0, unchanged=9)
    assert {at for _, _, at in _rows(corpus.index_path).values()} == {"sentinel"}


async def test_modified_file_is_the_only_one_reindexed(
    corpus: LocalCorpus, corpus_root: Path
) -> None:
    corpus.index()
    before = _rows(corpus.index_path)
    _write(corpus_root / "photo.md", "# Photosynthesis\n\nChlorophyll captures photons.\n")

    stats = corpus.index()

    assert stats == IndexStats(added=0, updated=1, removed=0, unchanged=8)
    after = _rows(corpus.index_path)
    assert {name for name in after if after[name] != before[name]} == {"photo.md"}
    assert after["photo.md"][0] == before["photo.md"][0]  # same row, updated in place
    assert await _urls(corpus, "sugar") == []
    assert [Path(u).name for u in await _urls(corpus, "chlorophyll")] == ["photo.md"]
    _check_fts(corpus.index_path, "sugar", "sunlight")


async def test_deleted_file_disappears_from_results(corpus: LocalCorpus, corpus_root: Path) -> None:
    corpus.index()
    url = (corpus_root / "notes" / "mito.txt").as_uri()
    assert await _urls(corpus, "powerhouse") == [url]
    (corpus_root / "notes" / "mito.txt").unlink()

    stats = corpus.index()

    assert stats == IndexStats(added=0, updated=0, removed=1, unchanged=8)
    assert await _urls(corpus, "powerhouse") == []
    with pytest.raises(SourceError):
        await corpus.read(url)
    _check_fts(corpus.index_path, "powerhous", "mitochondria")


async def test_missing_folder_at_index_time_keeps_the_index(
    corpus: LocalCorpus, corpus_root: Path
) -> None:
    corpus.index()
    corpus_root.rename(corpus_root.with_name("moved"))

    with pytest.raises(CorpusNotFoundError):
        corpus.index()
    assert len(_rows(corpus.index_path)) == 9


def test_html_extraction_drops_furniture_and_keeps_headings() -> None:
    page = extract_html_file(HTML_PAGE)

    assert page.title == "Cell & Energy"
    assert page.language == "en"
    assert page.text == (
        "# Cellular respiration\n\n"
        "Cells break down glucose.\n\n"
        "- Glycolysis\n"
        "- Krebs cycle\n\n"
        "## ATP yield\n\n"
        "About 30 ATP per glucose."
    )


def test_html_without_main_element_keeps_its_headings() -> None:
    # trafilatura keeps headings only inside a content container such as <main>.
    page = extract_html_file(
        "<html><head><title>FAQ</title></head><body>"
        "<nav><a href='/'>navlink home</a></nav>"
        "<h1>Questions</h1><p>Answers to common questions about storage.</p>"
        "<h2>How long do batteries last?</h2><p>Most last fifteen to twenty years.</p>"
        "<footer><p>footercopyright</p></footer></body></html>"
    )

    assert page.text == (
        "# Questions\n\n"
        "Answers to common questions about storage.\n\n"
        "## How long do batteries last?\n\n"
        "Most last fifteen to twenty years."
    )


def test_html_title_falls_back_to_first_h1() -> None:
    page = extract_html_file("<body><h2>Intro</h2><h1>Main  <i>topic</i></h1><h1>Other</h1></body>")

    assert page.title == "Main topic"


def test_html_inline_markup_adds_no_space_and_a_break_or_nested_block_one() -> None:
    # a quote of a manual page reads as the page does: "(HEAD)", not "( HEAD )"
    page = extract_html_file(
        "<html><body><main><p>Set the branch head (<code>HEAD</code>) to "
        "<code>&lt;commit&gt;</code>, see <a href='x'>git-<b>log</b></a>.<br>Next line.</p>"
        "<ul><li>outer<ul><li>inner</li></ul></li></ul></main></body></html>"
    )

    assert page.text == (
        "Set the branch head (HEAD) to <commit>, see git-log. Next line.\n\n- outer inner"
    )


def test_a_list_item_s_label_is_set_apart_from_the_paragraph_after_it() -> None:
    # SQLite's limits page: "<li><p><b>Maximum length of a string or BLOB</b></p><p>The
    # maximum number ...": run together, the label read as the start of the sentence after it
    page = extract_html_file(
        "<html><body><main><p>The limits follow.</p><ol>"
        "<li><p><b>Maximum length of a string</b></p><p>The maximum is set by a macro.</p>"
        "<p>Its default is 1 billion.</p></li><li>One line, <i>inline</i> words.</li>"
        "<li><p>A full sentence.</p><p>Another one.</p></li></ol></main></body></html>"
    )

    assert page.text.split("\n")[2:] == [
        "- Maximum length of a string: The maximum is set by a macro. Its default is 1 billion.",
        "- One line, inline words.",
        "- A full sentence. Another one.",
    ]


@pytest.mark.parametrize(
    ("html", "text"),
    [
        ("<h2>A</h2><h1>Main  <i>topic</i></h1><p>Text.</p>", "## A\n\n# Main topic\n\nText."),
        ("<html><body>Loose <b>body</b> text.</body></html>", "Loose body text."),
        ("<html><body><nav>Only a menu</nav></body></html>", ""),
        ("<html><body><script>x()</script></body></html>", ""),
        ("", ""),
    ],
)
def test_html_with_little_content_keeps_what_it_has(html: str, text: str) -> None:
    # A fragment is parsed as a page; a page without main content gives its visible text.
    assert extract_html_file(html).text == text


def test_paragraphs_written_as_divs_and_headings_opening_with_an_anchor_are_read() -> None:
    # DocBook's Publican output (the Debian Administrator's Handbook): trafilatura read only the
    # inline elements of a <div class="para"> and the text after them, and dropped a heading
    # that opens with an empty link target; a chapter of 16,000 characters came out as 2,700
    page = extract_html_file(
        "<html><body><div class='section'><div class='titlepage'><div><div>"
        "<h3 class='title'><a id='sect.pinning'></a>6.2.5. Managing Priorities</h3>"
        "</div></div></div><div class='para'>A package is held back with "
        "<code class='command'>apt-mark hold</code>, and a pin gives it a priority of its "
        "own.</div><div class='para'>Priorities above 1000 may downgrade a package.</div>"
        "</div></body></html>"
    )

    assert page.text == (
        "### 6.2.5. Managing Priorities\n\n"
        "A package is held back with apt-mark hold, and a pin gives it a priority of its own.\n\n"
        "Priorities above 1000 may downgrade a package."
    )


def test_a_preformatted_block_keeps_its_lines() -> None:
    # trafilatura read a bare <pre> (DocBook's programlisting, PostgreSQL's synopses) as a
    # quotation run into one line: a configuration file's comments became "sentences"
    page = extract_html_file(
        "<html><body><main><p>The file needs few changes:</p><pre class='programlisting'>"
        "# TAG: speed\n#       Specifies the speed\nspeed 115200</pre>"
        "<p>Then restart the daemon.</p></main></body></html>"
    )

    assert page.text == (
        "The file needs few changes:\n\n"
        "    # TAG: speed\n    #       Specifies the speed\nspeed 115200\n\n"
        "Then restart the daemon."
    )


def test_code_inside_code_stays_in_its_sentence() -> None:
    # PostgreSQL's manual nests <code> elements; trafilatura moved the inner ones out of their
    # sentence: "use the function . ... than the notify(text)NOTIFY command"
    page = extract_html_file(
        "<html><body><main><p>You can also use the function <code class='literal'>"
        "<code class='function'>notify</code>(<code class='type'>text</code>)</code>, "
        "which is easier than the <code class='command'>NOTIFY</code> command.</p>"
        "</main></body></html>"
    )

    assert page.text == (
        "You can also use the function notify(text), which is easier than the NOTIFY command."
    )


def test_only_a_heading_names_the_section_of_what_follows() -> None:
    # a root shell's prompt in an example ("# apt install ...") named the section of every
    # sentence after it, and a configuration comment ("# Example A: ...") was no line of its
    # example; as Markdown reads them, neither is a heading
    page = extract_html_file(
        "<html><body><main><h2>Installing</h2><p>Install a package from Unstable.</p>"
        "<pre># apt install spamassassin/unstable</pre><p>APT fetches it with its "
        "dependencies.</p></main></body></html>"
    )
    text = "\n".join(
        [
            "# Title",
            "Text one.",
            "```",
            "# a comment in a fenced block",
            "```",
            "    # an indented line of code",
            "#include <stdio.h>",
            "## Sub",
            "More text.",
        ]
    )

    assert [(s.text, s.section) for s in sentences(page.text)][-1] == (
        "APT fetches it with its dependencies.",
        "Installing",
    )
    assert [(s.text, s.section) for s in sentences(text) if not s.text.startswith("`")] == [
        ("Text one.", "Title"),  # a line opening with "#" is no sentence either
        ("More text.", "Sub"),
    ]


def test_a_manual_s_index_page_gives_its_text_without_its_navigation() -> None:
    # DocBook's chapter pages (PostgreSQL's manual): a navigation table, a table of contents
    # and a heading, so trafilatura finds no main content and the visible text is read; the
    # navigation once reached a report as "BRIN Indexes Prev Up Part VII [2]. Internals Home
    # Next Chapter 71 [2]."
    page = extract_html_file(
        "<html><body><div class='navheader'><table><tr><th>Chapter 9. Widgets</th></tr><tr>"
        "<td><a href='p.html'>Prev</a></td><td><a href='u.html'>Up</a></td>"
        "<th>Part II. Parts</th><td><a href='index.html'>Home</a></td>"
        "<td><a href='n.html'>Next</a></td></tr></table></div>"
        "<div class='chapter'><div class='titlepage'><div><div>"
        "<h2 class='title'>Chapter 9. Widgets</h2></div></div></div>"
        "<div class='toc'><dl class='toc'>"
        "<dt><span class='sect1'><a href='a.html'>9.1. Introduction</a></span></dt>"
        "<dt><span class='sect1'><a href='b.html'>9.2. Parts that turn</a></span></dt></dl></div>"
        "</div>"
        "<div role='navigation'><a href='s.html'>Search page</a></div>"
        "<div class='navfooter'><table><tr><td><a href='p.html'>Prev</a></td>"
        "<td><a href='n.html'>Next</a></td></tr></table></div></body></html>"
    )

    assert page.text == "Chapter 9. Widgets"
    for furniture in ("Prev", "Up", "Home", "Next", "Part II", "Introduction", "Search"):
        assert furniture not in page.text


async def test_html_document_stores_extracted_text_and_language(
    corpus: LocalCorpus, corpus_root: Path
) -> None:
    document = await corpus.read((corpus_root / "notes" / "resp.html").as_uri())

    assert document.text.startswith("# Cellular respiration\n\n")
    assert document.metadata["language"] == "en"
    furniture = ("scriptsecret", "stylered", "navlink", "headerbanner", "asidetrivia", "formlabel")
    for marker in (*furniture, "noscriptnotice", "footercopyright"):
        assert marker not in document.text
        assert await _urls(corpus, marker) == []


@pytest.mark.parametrize(
    "query",
    ['"', '""', "*", "()", "NEAR(", "AND OR NOT", "^-+:", "the of and is", "   ", ""],
)
async def test_syntax_or_stopword_queries_return_nothing(corpus: LocalCorpus, query: str) -> None:
    assert await corpus.search(query, 5) == []


async def test_fts5_syntax_in_a_real_query_is_ignored(corpus: LocalCorpus) -> None:
    results = await corpus.search('title:"glucose" NOT (krebs* AND', 5)

    assert [r.title for r in results] == ["Cell & Energy"]


async def test_read_returns_text_matching_its_id(corpus: LocalCorpus, corpus_root: Path) -> None:
    path = corpus_root / "photo.md"

    document = await corpus.read(path.as_uri())

    digest = hashlib.sha256(document.text.encode()).hexdigest()
    assert document.id == f"doc_{digest[:16]}"
    assert document.text == "# Photosynthesis\n\nPlants turn sunlight into sugar.\n"
    assert document.title == "Photosynthesis"
    assert document.url == path.resolve().as_uri()
    assert document.metadata["path"] == str(path.resolve())
    assert document.metadata["sha256"] == digest
    assert document.metadata["file_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


async def test_read_finds_a_path_with_spaces(tmp_path: Path) -> None:
    root = tmp_path / "my corpus"
    _write(root / "a note.txt", "Hello\nworld")
    corpus = LocalCorpus(root, tmp_path / "i.sqlite")

    [result] = await corpus.search("world", 5)

    assert "%20" in result.url
    assert (await corpus.read(result.url)).title == "Hello"
    unencoded = f"file://{root.resolve() / 'a note.txt'}"
    assert (await corpus.read(unencoded)).url == result.url


@pytest.mark.parametrize(
    "url", ["file:///nowhere/missing.md", "https://example.com/photo.md", "not a url"]
)
async def test_read_unknown_url_raises_source_error(corpus: LocalCorpus, url: str) -> None:
    with pytest.raises(SourceError):
        await corpus.read(url)


def test_missing_folder_raises_corpus_not_found(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    with pytest.raises(CorpusNotFoundError, match="missing"):
        LocalCorpus(missing, tmp_path / "i.sqlite")
    _write(tmp_path / "file.md", "# Not a folder")
    with pytest.raises(CorpusNotFoundError):
        LocalCorpus(tmp_path / "file.md", tmp_path / "i.sqlite")
    assert not (tmp_path / "i.sqlite").exists()


async def test_control_characters_stripped_and_newlines_normalized(tmp_path: Path) -> None:
    root = tmp_path / "c"
    root.mkdir()
    (root / "raw.txt").write_bytes(
        b"\xef\xbb\xbfFirst\x00 line\r\nsecond\x07\x1b line\rthird\tcol\x7f\r\n\xff"
    )
    corpus = LocalCorpus(root, tmp_path / "i.sqlite")

    document = await corpus.read((root / "raw.txt").as_uri())

    assert document.text == "First line\nsecond line\nthird\tcol\n\ufffd"
    assert document.title == "First line"


@pytest.mark.parametrize(
    ("name", "content", "title"),
    [
        (
            "a.md",
            "Intro text\n\n```\n# not a title\n```\n\n## Sub\n\n# Real title #\n",
            "Real title",
        ),
        ("b.markdown", "No heading here\n", "b"),
        ("c.txt", "\n\n   \n  First words  \nmore\n", "First words"),
        ("d.txt", "", "d"),
        ("e.htm", "<p>No title or h1</p>", "e"),
        (
            "f.txt",
            "Date: Fri, 19 Dec 2008\nFrom: A <a@example.org>,\n B <b@example.org>\n"
            "Subject: Re: Odd merge behaviour\n\nBody text.\n",
            "Re: Odd merge behaviour",
        ),
        ("g.txt", "Note: the first line\nis a line of text.\n", "Note: the first line"),
    ],
)
async def test_titles(tmp_path: Path, name: str, content: str, title: str) -> None:
    root = tmp_path / "c"
    _write(root / name, content)
    corpus = LocalCorpus(root, tmp_path / "i.sqlite")

    assert (await corpus.read((root / name).as_uri())).title == title


def test_default_index_path(tmp_path: Path) -> None:
    root = tmp_path / "papers"
    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:10]

    path = default_index_path(tmp_path / "data", root)

    assert path == tmp_path / "data" / "indexes" / f"papers-{digest}.sqlite"
    assert default_index_path(tmp_path / "data", tmp_path / "other" / "papers") != path


async def test_a_document_in_two_files_is_searched_once_and_counted_as_a_copy(
    tmp_path: Path,
) -> None:
    # git's manual ships each page as HTML and as its AsciiDoc source: a query's results are
    # distinct documents, not the same page twice
    root = tmp_path / "c"
    body = "Resets the current branch head to a commit and keeps the working tree changes."
    _write(
        root / "git-reset.html", f"<title>git-reset(1)</title><h1>git-reset(1)</h1><p>{body}</p>"
    )
    _write(root / "git-reset.txt", f"git-reset(1)\n\n{body}\n")
    _write(root / "other.txt", "git-reset(1)\n\nA different page on working tree branch heads.\n")
    _fillers(root)
    corpus = LocalCorpus(root, tmp_path / "i.sqlite")

    urls = await _urls(corpus, "reset branch head working tree")
    assert (root / "git-reset.html").as_uri() in urls and (root / "other.txt").as_uri() in urls
    assert (root / "git-reset.txt").as_uri() not in urls
    assert body in (await corpus.read((root / "git-reset.txt").as_uri())).text  # still read
    inventory = corpus.inventory()
    assert inventory.copies == 1
    assert ", 1 of them a copy of another (the same title and words" in summary_line(inventory)
    # two invoices of one template share their words, not their numbers: both are searched
    template = (
        "Invoice\n\nInvoice number {n} for grid storage services rendered this month under the"
        " agreement; the amount due is {a} dollars, payable within thirty days of receipt by"
        " bank transfer to the account named in the agreement.\n"
    )
    _write(root / "inv1.txt", template.format(n="10442", a="1250"))
    _write(root / "inv2.txt", template.format(n="10443", a="980"))
    corpus.index()
    invoices = await _urls(corpus, "invoice storage services amount")
    assert {(root / f"inv{n}.txt").as_uri() for n in (1, 2)} <= set(invoices)
    # the original gone, the copy is the document: searched again
    (root / "git-reset.html").unlink()
    corpus.index()
    assert (root / "git-reset.txt").as_uri() in await _urls(corpus, "reset branch head")
    assert corpus.inventory().copies == 0


async def test_one_document_in_two_formats_under_two_titles_is_found_once(
    tmp_path: Path,
) -> None:
    # git-doc's howto/revert-branch-rebase: the HTML ("How to revert an existing commit") and
    # the AsciiDoc it was made from ("[HOWTO] Reverting an existing commit"), both cited by one
    # report and counted as two independent sources
    root = tmp_path / "c"
    body = (
        "One of the changes I pulled into the master branch turns out to break the build, so I"
        " revert that commit with git revert and keep the rest of the merge as it is."
    )
    _write(
        root / "howto" / "revert.html",
        f"<title>How to revert an existing commit</title><h1>How to revert</h1><p>{body}</p>",
    )
    _write(root / "howto" / "revert.txt", f"[HOWTO] Reverting an existing commit\n\n{body}\n")
    # one name, other words: two documents
    _write(root / "howto" / "merge.html", "<title>Merging</title><p>Merge a branch with git.</p>")
    _write(root / "howto" / "merge.txt", "Notes\n\nWe revert a merge commit with git revert -m.\n")
    _fillers(root)
    corpus = LocalCorpus(root, tmp_path / "i.sqlite")

    urls = await _urls(corpus, "revert commit git merge")
    assert (root / "howto" / "revert.html").as_uri() in urls
    assert (root / "howto" / "revert.txt").as_uri() not in urls
    assert (root / "howto" / "merge.txt").as_uri() in urls
    assert (root / "howto" / "merge.html").as_uri() in urls
    # a Sphinx build's page and its source in _sources (rsyslog's manual): under two titles,
    # and under one (a copy, whose original is the page, though "_sources" sorts first)
    html, sources = root / "html", root / "html" / "_sources"
    rules = "Filter conditions select the messages an action gets, by program, facility or text."
    _write(html / "filters.html", f"<title>Filter Conditions - rsyslog</title><p>{rules}</p>")
    _write(sources / "filters.rst.txt", f"Filter Conditions\n=================\n\n{rules}\n")
    queues = "A queue holds the messages an action has not yet written, in memory or on disk."
    _write(html / "queues.html", f"<title>Queues</title><h1>Queues</h1><p>{queues}</p>")
    _write(sources / "queues.rst.txt", f"Queues\n\n{queues}\n")
    corpus.index()
    urls = await _urls(corpus, "filter conditions messages program")
    assert (html / "filters.html").as_uri() in urls
    assert not any("_sources" in url for url in urls)
    urls = await _urls(corpus, "queue messages action memory disk")
    assert (html / "queues.html").as_uri() in urls
    assert not any("_sources" in url for url in urls)


def test_a_name_of_joined_words_is_indexed_with_its_words() -> None:
    assert fts_text("Set LimitRequestBody to 102400.") == (
        "Set LimitRequestBody limit request body to 102400."
    )
    assert fts_text("KeepAliveTimeout and maxRequestWorkers") == (
        "KeepAliveTimeout keep alive timeout and maxRequestWorkers max request workers"
    )
    assert fts_text("HTTP, iPhone, Apache and mod_ssl") == "HTTP, iPhone, Apache and mod_ssl"


async def test_a_setting_named_by_joined_words_is_found_by_its_words(tmp_path: Path) -> None:
    # Apache's core page names LimitRequestBody among a hundred directives: asked for "the size
    # of a request body", it ranked below every short page that says "request" and "body"
    root = tmp_path / "manual"
    directives = " ".join(
        f"The {name} directive sets how the server handles {topic}."
        for name, topic in [
            ("AcceptPathInfo", "trailing path names"),
            ("AllowOverride", "htaccess files"),
            ("LimitRequestBody", "the bytes allowed in a message sent by a client"),
            ("KeepAliveTimeout", "idle connections"),
            ("ServerTokens", "its banner"),
        ]
        * 6
    )
    _write(root / "core.html", f"<title>core</title><h1>core</h1><p>{directives}</p>")
    _write(root / "mod_a.html", "<title>mod_a</title><p>A request body is passed on as is.</p>")
    _write(root / "mod_b.html", "<title>mod_b</title><p>The body of a request is logged.</p>")
    _fillers(root)
    corpus = LocalCorpus(root, tmp_path / "i.sqlite")

    urls = await _urls(corpus, "limit request body")
    assert urls[0] == (root / "core.html").as_uri()


async def test_a_file_not_in_utf8_is_read_in_the_charset_it_declares(tmp_path: Path) -> None:
    # Apache's Korean manual pages are EUC-KR: read as UTF-8, their words became runs of
    # replacement characters that an English report quoted
    root = tmp_path / "manual"
    korean = (
        '<html lang="ko"><head><meta http-equiv="Content-Type" content="text/html; '
        'charset=EUC-KR"><title>내용협상</title></head><body><main><h1>내용협상</h1>'
        "<p>아파치는 HTTP/1.1 규약의 내용협상 기능을 지원한다. 브라우저가 제공한 정보를 사용하여"
        " 자원의 가장 적합한 표현을 선택한다.</p></main></body></html>"
    )
    _write_bytes(root / "ko" / "negotiation.html", korean.encode("euc-kr"))
    # an older Windows text file: no declaration, not UTF-8
    _write_bytes(
        root / "notes.txt",
        "Caf\u00e9 notes\n\nThe \u201cgrid\u201d battery was commissioned.\n".encode("cp1252"),
    )
    _fillers(root)
    corpus = LocalCorpus(root, tmp_path / "i.sqlite")
    corpus.index()

    page = await corpus.read((root / "ko" / "negotiation.html").as_uri())
    assert "내용협상 기능을 지원한다" in page.text and "\ufffd" not in page.text
    notes = await corpus.read((root / "notes.txt").as_uri())
    assert notes.title == "Caf\u00e9 notes"
    assert "The \u201cgrid\u201d battery" in notes.text


def _write_bytes(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _page(language: str, title: str, body: str) -> str:
    return (
        f'<!doctype html><html lang="{language}"><head><title>{title}</title></head>'
        f"<body><main><h1>{title}</h1><p>{body}</p></main></body></html>"
    )


async def test_a_page_and_its_translations_are_found_once_in_the_language_asked(
    tmp_path: Path,
) -> None:
    # a manual in language folders (Apache's en/, es/, fr/): one page in three languages is one
    # document; an English report cited the Spanish translation, shorter and so ranked first,
    # and counted the French one as a second independent source
    root = tmp_path / "manual"
    english = (
        "The AllowOverride directive of the core module tells which directives a .htaccess file"
        " may override; the default is None, so .htaccess files are ignored. "
    ) * 3
    _write(root / "en" / "mod" / "core.html", _page("en", "core", english))
    _write(
        root / "es" / "mod" / "core.html",
        _page("es", "core", "La directiva AllowOverride del módulo core."),
    )
    _write(
        root / "fr" / "mod" / "core.html",
        _page("fr", "core", "La directive AllowOverride du module core précise les directives."),
    )
    _write(root / "en" / "howto.html", _page("en", "howto", "An .htaccess file, AllowOverride."))
    _write(root / "es" / "howto.html", _page("es", "howto", "Un fichero .htaccess, AllowOverride."))
    _write(root / "notes" / "allowoverride.txt", "AllowOverride\n\nOur notes on AllowOverride.\n")
    _fillers(root)
    corpus = LocalCorpus(root, tmp_path / "i.sqlite")

    def relative(urls: list[str]) -> list[str]:
        return [url.removeprefix(root.as_uri() + "/") for url in urls]

    found = relative(await _urls(corpus, "allowoverride core"))
    assert sorted(found) == ["en/howto.html", "en/mod/core.html", "notes/allowoverride.txt"]
    # asked in French words, the French page where there is one (the how-to has none)
    found = relative(await _urls(corpus, "la directive allowoverride du module core"))
    assert "fr/mod/core.html" in found and "en/mod/core.html" not in found
    assert len([url for url in found if url.endswith("core.html")]) == 1


def test_the_folder_named_by_a_pages_language_is_what_its_translations_share(
    tmp_path: Path,
) -> None:
    root = tmp_path / "m"
    page = str(root / "fr" / "mod" / "core.html")
    assert translation_key(page, "fr", root) == "*/mod/core.html"
    assert translation_key(page, "FR", root) == "*/mod/core.html"
    assert translation_path(page, "fr", "en", root) == str(root / "en" / "mod" / "core.html")
    # a folder that merely looks like a language, or a page with no declared language, is not
    assert translation_key(str(root / "de" / "page.html"), "en", root) is None
    assert translation_key(page, None, root) is None
    # the root's own folders do not count: only those under it
    inside = tmp_path / "fr" / "docs"
    assert translation_key(str(inside / "page.html"), "fr", inside) is None
    assert reading_language("fr", ["en", "en"]) == "fr"
    assert reading_language("en", ["fr", "fr", "en"]) == "fr"
    assert reading_language("en", ["fr", "en"]) == "en"
    assert reading_language("en", []) == "en"
