"""The report's HTML comes from jinja2 templates with autoescape on: text from a sweep
(group ids, errors, paper keys) can never become markup."""

import importlib

# `mmtsim.report` is also the name of the report function, which the package exports.
report = importlib.import_module("mmtsim.report")


def test_template_parts_escape_every_value():
    parts = report._env().get_template("_parts.html.j2").module
    html = str(parts.table(report.Table(["<th>"], [["<script>alert(1)</script>", "a & b"]])))
    assert "<script>" not in html and "&lt;script&gt;" in html and "a &amp; b" in html
    html = str(parts.section(report.Section('"x" <y>', [report.Note("<b>n</b>")], level=2,
                                            anchor="a")))
    assert html.startswith('<h2 id="a">&#34;x&#34; &lt;y&gt;</h2>')
    assert '<p class="note">&lt;b&gt;n&lt;/b&gt;</p>' in html
