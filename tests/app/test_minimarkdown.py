"""app/minimarkdown.py: the Markdown subset for MODEL_CARD.md, always escaped."""

from app.minimarkdown import render


def test_blocks():
    html = str(render("# Title\n\nSome *text* and `code`.\nSame paragraph.\n\n1. one\n2. two\n\n```\n<raw>\n```\n"))
    assert "<h2>Title</h2>" in html
    assert "<p>Some <em>text</em> and <code>code</code>. Same paragraph.</p>" in html
    assert "<ol><li>one</li><li>two</li></ol>" in html
    assert "<pre><code>&lt;raw&gt;</code></pre>" in html


def test_table():
    html = str(render("| a | b |\n|---|---|\n| 1 | **2** |\n"))
    assert html == "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td><strong>2</strong></td></tr></tbody></table>"


def test_links_only_safe_schemes():
    html = str(render("[ok](https://example.org/x?a=1&b=2) [rel](docs/x.md) [bad](javascript:alert(1))"))
    assert '<a href="https://example.org/x?a=1&amp;b=2">ok</a>' in html
    assert '<a href="docs/x.md">rel</a>' in html
    assert "javascript:" in html and 'href="javascript' not in html


def test_html_is_escaped():
    html = str(render('<script>alert(1)</script> "quoted" <a href="x">'))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "&lt;a href=&quot;x&quot;&gt;" in html


def test_nested_lists_and_continuation_lines():
    html = str(render("- a\n  - a1\n    more of a1\n  - a2\n- b\n  1. b1\nafter\n"))
    assert html == ("<ul><li>a<ul><li>a1 more of a1</li><li>a2</li></ul></li><li>b<ol><li>b1</li></ol></li></ul>\n"
                    "<p>after</p>")
