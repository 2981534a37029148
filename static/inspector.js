// The translation inspector on the translate page. Once a translation is shown (by the server for
// /?q=..., or in place by translate.js, which fires a "translation" event on #result), every
// sentence of the German text is explained by POST /api/explain: its words, the words of its
// translation, the word alignment between them and the model's confidence in each output word.
// The translation is then redrawn as one button per word (its text stays exactly the same):
// - hovering or focusing a word highlights the words it is aligned to on the other side;
// - "Shade English words by the model's confidence" colours each English word by its probability
//   (also in its title and, while shading is on, its accessible name);
// - clicking an English word (or Enter on it) asks POST /api/complete for translations that keep
//   everything before it and continue with other words; choosing one replaces the rest of that
//   sentence's translation (and the sentence is explained again, forced to the new text).
// Arrow keys move between the words of a side (one tab stop per side); Escape closes the list.
"use strict";

(function () {
  const result = document.getElementById("result");
  const output = document.getElementById("translation");
  const panel = document.getElementById("inspector");
  const sourceBox = document.getElementById("source-words");
  const status = document.getElementById("inspector-status");
  const toggle = document.getElementById("confidence-toggle");
  const legend = document.getElementById("confidence-legend");
  const list = document.getElementById("alternatives");
  if (!result || !output || !panel) return;

  const MAX_ALTERNATIVES = 5;
  let units = [];        // one per sentence: {source, sep, translation, data}
  let generation = 0;    // bumps with every new translation: late answers of an old one are dropped
  let menu = null;       // the open list of alternatives: {word, unit, index, options, active}

  // -------------------------------------------------------------------------- server

  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    });
    let answer = null;
    try { answer = await response.json(); } catch (e) { answer = null; }
    if (!response.ok) throw new Error((answer && answer.error) || "The server answered " + response.status);
    return answer;
  }

  // ------------------------------------------------------------------------ sentences

  // /api/explain and /api/complete take one sentence, as /translate's pipeline translates them:
  // the text is cut here by the rules of pipeline/segment.py (ported; tests/app/
  // test_browser_inspector.py checks that both cut the same examples the same way), and the
  // translations are joined as the pipeline joins them (join_layout): one space between the
  // sentences of a line, the line breaks between lines.
  const ABBREVIATIONS = new Set(`
    abb abs abt adr allg anm apr aug bd bde bsp bspw bzgl bzw ca chr co dez di dipl do dr d.h ebd
    eigtl engl entspr etc ev evtl feb fa fr frl ggf gegr geb gebr gest ges hbf hg hr hrsg i.a i.d.r
    inkl insb jan jh jhd jr jul jun kap kfz kl lt max mi mio mind mo mrd mrz nov nr o.a o.ä o.g okt
    pkw pl prof rd s.o s.u sa sek sep sept sog so st std str tel u.a u.ä u.a.m u.u usw v.a v.chr
    vgl vs z.b z.t z.zt zb zt ziff zzgl`.split(/\s+/).filter(Boolean));
  const BOUNDARY = /(?<![.!?…])([.!?…]+)(["'”“’»«)\]]*)\s+(?=["'„“‚‘»«(\[]*[A-ZÄÖÜ0-9])/g;
  const OPENING = /^["'„“‚‘»«(\[]+/;

  function isAbbreviation(token) {
    const word = token.replace(OPENING, "").replace(/\.+$/, "").toLowerCase();
    if (/^\p{Nd}{1,3}$/u.test(word)) return true;        // ordinals: "am 3. Mai"
    if (/^\p{L}$/u.test(word)) return true;              // initials, "z. B."
    return ABBREVIATIONS.has(word) || word.endsWith("str");
  }

  // [start, end) spans of the sentences of one line of text (surrounding whitespace left out).
  function lineSentences(text, start, end) {
    while (start < end && /\s/.test(text[start])) start++;
    while (end > start && /\s/.test(text[end - 1])) end--;
    const line = text.slice(start, end);
    const spans = [];
    let from = 0;
    BOUNDARY.lastIndex = 0;
    let m;
    while ((m = BOUNDARY.exec(line))) {
      if (m[1] === "." && !m[2]) {
        const upto = m.index + 1;  // the token before the boundary, with its period
        const token = line.slice(from, upto).split(/\s/).pop();
        if (isAbbreviation(token)) continue;
      }
      spans.push([start + from, start + m.index + m[1].length + m[2].length]);
      from = m.index + m[0].length;
    }
    if (from < line.length) spans.push([start + from, end]);
    return spans;
  }

  // The sentences of a text with the separator that goes before each one's translation.
  function splitSentences(text) {
    const units = [];
    const breaks = /\r\n|\r|\n/g;
    let lineStart = 0;
    let line = 0;
    let lastLine = null;
    const lines = [];
    let m;
    while ((m = breaks.exec(text))) {
      lines.push([lineStart, m.index]);
      lineStart = m.index + m[0].length;
    }
    lines.push([lineStart, text.length]);
    lines.forEach(([a, b]) => {
      lineSentences(text, a, b).forEach(([start, end]) => {
        const sep = lastLine === null ? "" : lastLine === line ? " " : "\n".repeat(line - lastLine);
        units.push({ source: text.slice(start, end), start: start, end: end, sep: sep });
        lastLine = line;
      });
      line++;
    });
    return units;
  }
  window.inspectorSentences = splitSentences;  // for the tests

  // ---------------------------------------------------------------------------- words

  function confidenceClass(p) {
    if (p >= 0.9) return 4;
    if (p >= 0.7) return 3;
    if (p >= 0.5) return 2;
    if (p >= 0.3) return 1;
    return 0;
  }

  function percent(p) {
    return Math.round(p * 100) + "%";
  }

  // Words of a text as buttons, the text between them as text nodes: textContent stays the text.
  function wordNodes(text, spans, make) {
    const nodes = [];
    let position = 0;
    spans.forEach(([start, end], i) => {
      if (start > position) nodes.push(document.createTextNode(text.slice(position, start)));
      nodes.push(make(text.slice(start, end), i));
      position = end;
    });
    if (position < text.length) nodes.push(document.createTextNode(text.slice(position)));
    return nodes;
  }

  function wordButton(text, side, u, i) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "word " + side;
    button.textContent = text;
    button.tabIndex = -1;
    button.dataset.unit = String(u);
    button.dataset.word = String(i);
    return button;
  }

  function targetLabel(button) {
    const unit = units[Number(button.dataset.unit)];
    const p = unit.data && unit.data.confidence ? unit.data.confidence[Number(button.dataset.word)] : null;
    if (p == null) {
      button.removeAttribute("title");
      button.removeAttribute("aria-label");
      return;
    }
    button.title = "Model's confidence: " + percent(p);
    if (toggle.checked) button.setAttribute("aria-label", button.textContent + ", confidence " + percent(p));
    else button.removeAttribute("aria-label");
  }

  function render() {
    const sourceNodes = [];
    const targetNodes = [];
    units.forEach((unit, u) => {
      const data = unit.data || {};
      if (u) {
        sourceNodes.push(document.createTextNode(unit.sep));
        targetNodes.push(document.createTextNode(unit.sep));
      }
      const src = document.createElement("span");
      src.className = "sentence";
      src.replaceChildren(...wordNodes(unit.source, data.source_spans || [], (w, i) => {
        return wordButton(w, "src", u, i);
      }));
      sourceNodes.push(src);
      const tgt = document.createElement("span");
      tgt.className = "sentence";
      tgt.replaceChildren(...wordNodes(unit.translation, unit.spans, (w, i) => {
        const b = wordButton(w, "tgt", u, i);
        b.setAttribute("aria-haspopup", "listbox");
        b.setAttribute("aria-expanded", "false");
        const p = data.confidence ? data.confidence[i] : null;
        if (p != null) b.classList.add("conf-" + confidenceClass(p));
        return b;
      }));
      targetNodes.push(tgt);
    });
    sourceBox.replaceChildren(...sourceNodes);
    output.replaceChildren(...targetNodes);
    output.querySelectorAll(".word").forEach(targetLabel);
    [sourceBox, output].forEach((box) => {
      const first = box.querySelector(".word");
      if (first) first.tabIndex = 0;
    });
    output.classList.add("inspectable");
    output.setAttribute("role", "group");
    output.setAttribute("aria-label", "English, word by word");
    output.setAttribute("aria-describedby", "inspector-help");
  }

  // Put the translation back as plain text (a new one is coming, or the inspector failed).
  function plain(text) {
    closeMenu(false);
    output.textContent = text;
    output.classList.remove("inspectable");
    output.removeAttribute("role");
    output.removeAttribute("aria-label");
    output.removeAttribute("aria-describedby");
    sourceBox.replaceChildren();
    panel.hidden = true;
  }

  // ------------------------------------------------------------------------ alignment

  function linked(side, u, i) {
    const data = units[u].data;
    if (!data || !data.alignment) return [];
    return data.alignment.filter(([t, s]) => (side === "tgt" ? t : s) === i).map(([t, s]) => (side === "tgt" ? s : t));
  }

  function clearHighlight() {
    document.querySelectorAll(".word.aligned, .word.current").forEach((w) => w.classList.remove("aligned", "current"));
  }

  function highlight(button, announce) {
    clearHighlight();
    if (!button) return;
    const side = button.classList.contains("tgt") ? "tgt" : "src";
    const other = side === "tgt" ? sourceBox : output;
    const u = Number(button.dataset.unit);
    const i = Number(button.dataset.word);
    button.classList.add("current");
    const partners = linked(side, u, i).map((j) => other.querySelector('.word[data-unit="' + u + '"][data-word="' + j + '"]'))
      .filter(Boolean);
    partners.forEach((w) => w.classList.add("aligned"));
    if (!announce) return;
    const names = partners.map((w) => "“" + w.textContent + "”").join(", ");
    let message = side === "tgt"
      ? "English “" + button.textContent + "” is aligned to German " + (names || "nothing")
      : "German “" + button.textContent + "” is aligned to English " + (names || "nothing");
    const data = units[u].data;
    if (side === "tgt" && data && data.confidence && data.confidence[i] != null) {
      message += "; confidence " + percent(data.confidence[i]);
    }
    status.textContent = message + ".";
  }

  function onWord(event, handler) {
    const button = event.target.closest && event.target.closest(".word");
    if (button) handler(button);
  }

  [sourceBox, output].forEach((box) => {
    box.addEventListener("mouseover", (event) => onWord(event, (b) => highlight(b, false)));
    box.addEventListener("mouseout", () => highlight(document.activeElement && document.activeElement.closest
      ? document.activeElement.closest(".word") : null, false));
    box.addEventListener("focusin", (event) => onWord(event, (b) => {
      box.querySelectorAll(".word").forEach((w) => { w.tabIndex = w === b ? 0 : -1; });
      highlight(b, true);
    }));
    box.addEventListener("keydown", (event) => {
      const button = event.target.closest(".word");
      if (!button) return;
      const words = Array.from(box.querySelectorAll(".word"));
      const at = words.indexOf(button);
      let next = null;
      if (event.key === "ArrowRight" || event.key === "ArrowDown") next = words[at + 1];
      else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = words[at - 1];
      else if (event.key === "Home") next = words[0];
      else if (event.key === "End") next = words[words.length - 1];
      else return;
      event.preventDefault();
      if (next) next.focus();
    });
  });

  // A German word: Enter or a click goes to (the first of) its English words.
  sourceBox.addEventListener("click", (event) => onWord(event, (b) => {
    const u = b.dataset.unit;
    const first = linked("src", Number(u), Number(b.dataset.word)).sort((a, c) => a - c)[0];
    const target = first == null ? null : output.querySelector('.word[data-unit="' + u + '"][data-word="' + first + '"]');
    if (target) target.focus();
  }));

  toggle.addEventListener("change", () => {
    output.classList.toggle("show-confidence", toggle.checked);
    legend.hidden = !toggle.checked;
    output.querySelectorAll(".word").forEach(targetLabel);
  });

  // ---------------------------------------------------------------------- alternatives

  output.addEventListener("click", (event) => onWord(event, (b) => openMenu(b)));

  function collapse(text) {
    return text.replace(/\s+/g, " ").replace(/^ /, "");
  }

  async function openMenu(button) {
    if (button.getAttribute("aria-busy") === "true") return;  // already asked
    if (menu && menu.word === button) {
      closeMenu(true);
      return;
    }
    closeMenu(false);
    const u = Number(button.dataset.unit);
    const i = Number(button.dataset.word);
    const unit = units[u];
    const start = unit.spans[i][0];
    const prefix = unit.translation.slice(0, start);
    const current = unit.translation.slice(start).match(/^\S*/)[0];
    const mine = generation;
    button.setAttribute("aria-busy", "true");
    status.textContent = "Looking for other words instead of “" + button.textContent + "”…";
    let answer;
    try {
      // one more than shown: the word already there is usually among them
      answer = await post("/api/complete", { q: unit.source, prefix: prefix, n: MAX_ALTERNATIVES + 1 });
    } catch (e) {
      if (mine === generation) status.textContent = "No alternatives: " + e.message;
      return;
    } finally {
      button.removeAttribute("aria-busy");
    }
    if (mine !== generation || !button.isConnected) return;
    // What each completion puts at this position: its text after the prefix, up to the next space.
    const normal = collapse(prefix);
    const seen = new Set([current]);
    const options = [];
    (answer.completions || []).forEach((c) => {
      const text = c.text || "";
      const after = text.startsWith(normal) ? text.slice(normal.length) : null;
      const label = after === null ? c.word || "" : (after.match(/^\S*/)[0] || "(end)");
      if (!label || seen.has(label) || options.length >= MAX_ALTERNATIVES) return;
      seen.add(label);
      options.push({ label: label, text: text, rest: after === null ? text : after.slice(label.length) });
    });
    if (!options.length) {
      status.textContent = "The model has no other word for “" + button.textContent + "” here.";
      return;
    }
    list.replaceChildren(...options.map((o, k) => {
      const li = document.createElement("li");
      li.id = "alternative-" + k;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", k === 0 ? "true" : "false");
      const word = document.createElement("strong");
      word.textContent = o.label;
      const rest = document.createElement("span");
      rest.className = "rest";
      rest.textContent = o.rest;
      li.append(word, rest);
      li.setAttribute("aria-label", o.label + ": " + o.text);
      li.addEventListener("mousedown", (event) => event.preventDefault());  // keep the focus in the list
      li.addEventListener("click", () => choose(k));
      return li;
    }));
    list.setAttribute("aria-label", "Other words instead of “" + button.textContent + "”");
    list.setAttribute("aria-activedescendant", "alternative-0");
    menu = { word: button, unit: u, index: i, options: options, active: 0 };
    button.setAttribute("aria-expanded", "true");
    button.setAttribute("aria-controls", "alternatives");
    list.hidden = false;
    place(button);
    status.textContent = options.length + " alternatives for “" + button.textContent + "”: arrow keys choose, Enter takes one, Escape closes.";
    list.focus();
  }

  // Under the word, inside the page (phones: never wider than the screen).
  function place(button) {
    const box = panel.offsetParent || document.body;
    const frame = box.getBoundingClientRect();
    const rect = button.getBoundingClientRect();
    list.style.top = (rect.bottom - frame.top + 4) + "px";
    const width = list.offsetWidth;
    const left = Math.max(0, Math.min(rect.left - frame.left, frame.width - width));
    list.style.left = left + "px";
  }

  function activate(k) {
    if (!menu) return;
    menu.active = (k + menu.options.length) % menu.options.length;
    list.querySelectorAll('[role="option"]').forEach((li, j) => li.setAttribute("aria-selected", j === menu.active ? "true" : "false"));
    list.setAttribute("aria-activedescendant", "alternative-" + menu.active);
    const li = document.getElementById("alternative-" + menu.active);
    if (li) li.scrollIntoView({ block: "nearest" });
  }

  function closeMenu(returnFocus) {
    if (!menu) return;
    const word = menu.word;
    menu = null;
    list.hidden = true;
    list.replaceChildren();
    list.removeAttribute("aria-activedescendant");
    word.setAttribute("aria-expanded", "false");
    word.removeAttribute("aria-controls");
    if (returnFocus && word.isConnected) word.focus();
  }

  list.addEventListener("keydown", (event) => {
    if (!menu) return;
    switch (event.key) {
      case "ArrowDown": activate(menu.active + 1); break;
      case "ArrowUp": activate(menu.active - 1); break;
      case "Home": activate(0); break;
      case "End": activate(menu.options.length - 1); break;
      case "Enter": case " ": choose(menu.active); break;
      case "Escape": closeMenu(true); status.textContent = ""; break;
      case "Tab": closeMenu(false); return;  // let the focus move on
      default: return;
    }
    event.preventDefault();
  });
  list.addEventListener("focusout", (event) => {
    if (menu && !list.contains(event.relatedTarget)) closeMenu(false);
  });
  document.addEventListener("click", (event) => {
    if (menu && !list.contains(event.target) && event.target !== menu.word) closeMenu(false);
  });

  // The chosen completion replaces the sentence's translation. Words before the chosen position
  // keep their alignment and confidence (a decoder sees only the words before it, so neither
  // changes); the new words have none (/api/explain translates, it cannot be given a text).
  function choose(k) {
    if (!menu) return;
    const { unit: u, index: i, options } = menu;
    const option = options[k];
    closeMenu(false);
    const unit = units[u];
    const old = unit.data || {};
    const keep = unit.spans.slice(0, i);
    const start = keep.length ? unit.spans[i][0] : 0;
    const cut = option.text.length >= start ? start : 0;
    unit.translation = option.text;
    unit.spans = keep.concat(roughSpans(option.text.slice(cut)).map(([a, b]) => [a + cut, b + cut]));
    unit.data = Object.assign({}, old, {
      confidence: (old.confidence || []).slice(0, i),
      alignment: (old.alignment || []).filter(([t]) => t < i),
    });
    render();
    focusWord(u, i);
    status.textContent = "Sentence " + (u + 1) + " now reads: " + option.text +
      " (no alignment or confidence for the new words).";
  }

  function focusWord(u, i) {
    const words = output.querySelectorAll('.word[data-unit="' + u + '"]');
    const target = words[Math.min(i, words.length - 1)];
    if (target) target.focus();
  }

  // Words by the server's rule (model/alignment.py), for a text it has not explained: a run of
  // letters and digits, or one punctuation or symbol character.
  function roughSpans(text) {
    const spans = [];
    const re = /[\p{P}\p{S}]|[^\s\p{P}\p{S}]+/gu;
    let m;
    while ((m = re.exec(text))) spans.push([m.index, m.index + m[0].length]);
    return spans;
  }

  // --------------------------------------------------------------------------- loading

  async function explainUnit(unit) {
    try {
      unit.data = await post("/api/explain", { q: unit.source });
      unit.translation = unit.data.translation;
      unit.spans = unit.data.target_spans || [];
    } catch (e) {
      // Too long for the inspector (MAX_ATTENTION_CHARS), say: translate it plainly, show it as text.
      unit.error = e.message;
      unit.data = null;
      try {
        const body = await post("/translate", { q: unit.source, source: "de", target: "en", format: "text" });
        unit.translation = body.translatedText;
      } catch (e2) {
        unit.translation = null;  // no text to show for it: the inspector gives up (see inspect)
      }
      unit.spans = [];
    }
  }

  async function inspect(q, translation) {
    const mine = ++generation;
    units = [];
    plain(translation);
    if (!q || !q.trim()) return;
    const todo = splitSentences(q);
    if (!todo.length) return;
    panel.hidden = false;
    status.textContent = "Explaining the translation…";
    // Two at a time: the server has a few workers; a long text must not queue everyone else.
    let next = 0;
    async function worker() {
      while (next < todo.length && mine === generation) await explainUnit(todo[next++]);
    }
    await Promise.all([worker(), worker()]);
    if (mine !== generation) return;
    const lost = todo.find((u) => u.translation == null);
    if (lost) {
      status.textContent = "The inspector is not available for this text: " + lost.error;
      return;
    }
    units = todo;
    render();
    const failed = units.filter((u) => u.error).length;
    status.textContent = failed ? failed + " of " + units.length + " sentences could not be explained (" +
      units.find((u) => u.error).error + "); they are shown as plain text." : "";
  }

  result.addEventListener("translation", (event) => inspect(event.detail.source, event.detail.translation));
  if (!result.hidden && result.dataset.source) inspect(result.dataset.source, output.textContent);
})();
