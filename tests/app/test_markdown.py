"""app/markdown.py: MODEL_CARD.md through markdown-it-py, always escaped, only safe URLs."""

import pytest

from app.markdown import render


def test_blocks():
    html = str(render("# Title\n\nSome *text* and `code`.\nSame paragraph.\n\n1. one\n2. two\n\n```\n<raw>\n```\n"))
    assert html == ("<h2>Title</h2>\n"
                    "<p>Some <em>text</em> and <code>code</code>.\nSame paragraph.</p>\n"
                    "<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n"
                    "<pre><code>&lt;raw&gt;\n</code></pre>\n")


def test_headings_move_one_level_down_and_stop_at_h6():
    assert str(render("# a\n\n## b\n\n##### e\n\n###### f\n")) == "<h2>a</h2>\n<h3>b</h3>\n<h6>e</h6>\n<h6>f</h6>\n"


def test_table():
    html = str(render("| a | b |\n|---|---|\n| 1 | **2** |\n"))
    assert html == ("<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n"
                    "<tbody>\n<tr>\n<td>1</td>\n<td><strong>2</strong></td>\n</tr>\n</tbody>\n</table>\n")


def test_table_alignment_is_a_class_not_an_inline_style():
    html = str(render("| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n"))
    assert "style=" not in html
    assert '<th class="align-left">a</th>\n<th class="align-center">b</th>\n<th class="align-right">c</th>' in html
    assert '<td class="align-left">1</td>\n<td class="align-center">2</td>\n<td class="align-right">3</td>' in html


def test_links_only_safe_schemes():
    html = str(render("[ok](https://example.org/x?a=1&b=2) [rel](docs/x.md) [bad](javascript:alert(1))"))
    assert html == ('<p><a href="https://example.org/x?a=1&amp;b=2">ok</a> <a href="docs/x.md">rel</a> '
                    "[bad](javascript:alert(1))</p>\n")


@pytest.mark.parametrize("url", ["http://a.org/", "https://a.org/x", "mailto:me@a.org", "docs/x.md", "/model",
                                 "#data", "?q=1", "x.md#a:b"])
def test_allowed_urls_become_links(url):
    assert str(render(f"[x]({url})")) == f'<p><a href="{url}">x</a></p>\n'


@pytest.mark.parametrize("url", ["javascript:alert(1)", "JavaScript:alert(1)", "jav&#x61;script:alert(1)",
                                 "vbscript:x", "data:text/html,x", "file:///etc/passwd", "<java\tscript:x>",
                                 "<\x01javascript:x>", "x:y/z"])
def test_other_schemes_stay_text(url):
    html = str(render(f"[x]({url}) ![i]({url}) <{url}>\n\n[r][ref]\n\n[ref]: {url}\n"))
    assert "href=" not in html and "src=" not in html


def test_images_only_safe_urls():
    html = str(render("![ok](img/x.png) ![bad](data:image/png;base64,AAAA)"))
    assert html == '<p><img src="img/x.png" alt="ok" /> ![bad](data:image/png;base64,AAAA)</p>\n'


def test_html_is_escaped():
    html = str(render('<script>alert(1)</script> "quoted" <a href="x">\n\n<div onclick="x()">block</div>\n'))
    assert html == ("<p>&lt;script&gt;alert(1)&lt;/script&gt; &quot;quoted&quot; &lt;a href=&quot;x&quot;&gt;</p>\n"
                    "<p>&lt;div onclick=&quot;x()&quot;&gt;block&lt;/div&gt;</p>\n")


def test_code_is_escaped_and_keeps_its_language_as_a_class():
    html = str(render("```python\nif a < b: print('<b>')\n```\n"))
    assert html == ('<pre><code class="language-python">if a &lt; b: print(\'&lt;b&gt;\')\n</code></pre>\n')


def test_nested_lists_and_continuation_lines():
    html = str(render("- a\n  - a1\n    more of a1\n  - a2\n- b\n  1. b1\n\nafter\n"))
    assert html == ("<ul>\n<li>a\n<ul>\n<li>a1\nmore of a1</li>\n<li>a2</li>\n</ul>\n</li>\n"
                    "<li>b\n<ol>\n<li>b1</li>\n</ol>\n</li>\n</ul>\n<p>after</p>\n")


def test_result_is_markup_so_jinja_does_not_escape_it_again():
    assert render("**x**").__html__() == "<p><strong>x</strong></p>\n"
