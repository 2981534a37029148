// The translation inspector on the translate page. Once a translation is shown (by the server for
// /?q=..., or in place by translate.js, which fires a "translation" event on #result; in its
// languages, data-source-language and data-target-language on #result), the German
// text is cut into sentences by POST /api/sentences (the pipeline's own cut, with what goes
// between the sentences' translations), and every sentence is explained by POST /api/explain: its
// words, the words of its translation, the word alignment between them and the model's confidence
// in each output word. The translation is then redrawn as one button per word (its text stays
// exactly the same):
// - hovering or focusing a word highlights the words it is aligned to on the other side;
// - "Shade English words by the model's confidence" colours each English word by its probability
//   (also in its title and, while shading is on, its accessible name);
// - clicking an English word (or Enter on it) lists other words for it (alternatives.js); choosing
//   one replaces the rest of that sentence's translation, which /api/explain then explains as
//   given (forced), so the new words are aligned and shaded too.
// Arrow keys move between the words of a side (one tab stop per side).
// Explanations are remembered per sentence (EXPLAINED), so that translating as you type explains
// only the sentences that changed. The words drawn are always the translation shown: with
// source=auto a sentence that is clearly not German comes back as it is, and is drawn as it is,
// without words to inspect; if the sentences' translations do not make up the translation shown,
// it stays plain text and the status line says so.
"use strict";

(function () {
  const result = document.getElementById("result");
  const output = document.getElementById("translation");
  const panel = document.getElementById("inspector");
  const tools = document.getElementById("inspector-tools");  // help, confidence toggle and legend, German side
  const sourceBox = document.getElementById("source-words");
  const status = document.getElementById("inspector-status");
  const toggle = document.getElementById("confidence-toggle");
  const legend = document.getElementById("confidence-legend");
  const list = document.getElementById("alternatives");
  if (!result || !output || !panel || !window.api || !window.makeAlternatives) return;

  const post = window.api.post;
  const NAMES = window.api.NAMES;
  const EXPLAINED = 200;  // sentences whose explanation is kept (least recently used dropped)
  const explanations = new Map();  // languages + NUL + sentence -> /api/explain's answer
  // one per sentence: {source, sourceSep, sep, translation, spans, sourceSpans, data, kept, langs}
  let units = [];

  // The languages of the translation shown (translate.js sets them on #result): the inspector asks
  // the model of that direction.
  function languages() {
    const langs = { source: result.dataset.sourceLanguage || "de", target: result.dataset.targetLanguage || "en" };
    if (result.dataset.formality) langs.formality = result.dataset.formality;
    return langs;
  }
  let generation = 0;    // bumps with every new translation: late answers of an old one are dropped

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

  // The server counts characters (code points), JavaScript strings UTF-16 units: an emoji is one
  // character there and two units here.
  function utf16(text, spans) {
    const at = [0];
    for (const ch of text) at.push(at[at.length - 1] + ch.length);
    return spans.map(([start, end]) => [at[start], at[end]]);
  }

  // A sentence's explanation, its spans made UTF-16 once here.
  function explained(unit, data) {
    unit.data = data;
    unit.translation = data.translation;
    unit.sourceSpans = utf16(unit.source, data.source_spans || []);
    unit.spans = utf16(data.translation, data.target_spans || []);
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

  // The German and the English side of sentence u.
  function sentenceNodes(unit, u) {
    const data = unit.data || {};
    const src = document.createElement("span");
    src.className = "sentence";
    src.dataset.unit = String(u);
    src.replaceChildren(...wordNodes(unit.source, unit.sourceSpans || [], (w, i) => wordButton(w, "src", u, i)));
    const tgt = document.createElement("span");
    tgt.className = "sentence";
    tgt.dataset.unit = String(u);
    if (unit.pending) tgt.setAttribute("aria-busy", "true");
    if (unit.kept) tgt.title = "Kept as written: not " + NAMES[unit.langs.source];
    tgt.replaceChildren(...wordNodes(unit.translation, unit.spans, (w, i) => {
      const b = wordButton(w, "tgt", u, i);
      b.setAttribute("aria-haspopup", "listbox");
      b.setAttribute("aria-expanded", "false");
      const p = data.confidence ? data.confidence[i] : null;
      if (p != null) b.classList.add("conf-" + confidenceClass(p));
      return b;
    }));
    tgt.querySelectorAll(".word").forEach(targetLabel);
    return [src, tgt];
  }

  // One tab stop per side: the first word, unless a word of the side has it already.
  function tabStops() {
    [sourceBox, output].forEach((box) => {
      const first = box.querySelector(".word");
      if (first && !box.querySelector('.word[tabindex="0"]')) first.tabIndex = 0;
    });
  }

  function render(tail) {
    const sourceNodes = [];
    const targetNodes = [];
    units.forEach((unit, u) => {
      if (u) sourceNodes.push(document.createTextNode(unit.sourceSep));
      if (unit.sep) targetNodes.push(document.createTextNode(unit.sep));
      const [src, tgt] = sentenceNodes(unit, u);
      sourceNodes.push(src);
      targetNodes.push(tgt);
    });
    if (tail) targetNodes.push(document.createTextNode(tail));
    sourceBox.replaceChildren(...sourceNodes);
    output.replaceChildren(...targetNodes);
    tabStops();
    output.classList.add("inspectable");
    output.setAttribute("role", "group");
    output.setAttribute("aria-label", NAMES[languages().target] + ", word by word");
    output.setAttribute("aria-describedby", "inspector-help");
    tools.hidden = false;
  }

  // Sentence u drawn again, the others left as they are (their words may have the focus).
  function redraw(u) {
    const [src, tgt] = sentenceNodes(units[u], u);
    sourceBox.querySelector('.sentence[data-unit="' + u + '"]').replaceWith(src);
    output.querySelector('.sentence[data-unit="' + u + '"]').replaceWith(tgt);
    tabStops();
    alternatives.redrawn(u);
  }

  // Put the translation back as plain text (a new one is coming, or the inspector failed).
  function plain(text) {
    alternatives.close(false);
    output.textContent = text;
    output.classList.remove("inspectable");
    output.removeAttribute("role");
    output.removeAttribute("aria-label");
    output.removeAttribute("aria-describedby");
    sourceBox.replaceChildren();
    tools.hidden = true;  // until there are words again: a status line alone says why there are none
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
    const source = NAMES[units[u].langs.source];
    const target = NAMES[units[u].langs.target];
    let message = side === "tgt"
      ? target + " “" + button.textContent + "” is aligned to " + source + " " + (names || "nothing")
      : source + " “" + button.textContent + "” is aligned to " + target + " " + (names || "nothing");
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
    const target = first == null ? null : wordAt(u, first);
    if (target) target.focus();
  }));

  toggle.addEventListener("change", () => {
    output.classList.toggle("show-confidence", toggle.checked);
    legend.hidden = !toggle.checked;
    output.querySelectorAll(".word").forEach(targetLabel);
  });

  // ---------------------------------------------------------------------- alternatives

  function wordAt(u, i) {
    return output.querySelector('.word[data-unit="' + u + '"][data-word="' + i + '"]');
  }

  const alternatives = window.makeAlternatives({
    output: output, panel: panel, list: list, status: status, wordAt: wordAt, choose: choose,
    unitAt: (u) => units[u], generation: () => generation,
  });

  function focusWord(u, i) {
    const words = output.querySelectorAll('.word[data-unit="' + u + '"]');
    const target = words[Math.min(i, words.length - 1)];
    if (target) target.focus();
  }

  // Words by the server's rule (model/alignment.py, app/inspection.py's join_apostrophes), for a
  // text it has not explained (yet): a run of letters and digits, apostrophes between them
  // included ("That's", "o'clock"), or one punctuation or symbol character.
  function roughSpans(text) {
    const spans = [];
    const re = /[^\s\p{P}\p{S}]+(?:['’][^\s\p{P}\p{S}]+)*|[\p{P}\p{S}]/gu;
    let m;
    while ((m = re.exec(text))) spans.push([m.index, m.index + m[0].length]);
    return spans;
  }

  // The chosen text, before /api/explain has explained it (and if it cannot): the words before
  // position i keep their confidence (a decoder sees only the words before it) and their links
  // among themselves; the new words have neither.
  function rough(unit, i, text) {
    const old = unit.data || {};
    const keep = unit.spans.slice(0, i);
    const start = keep.length ? unit.spans[i][0] : 0;
    const cut = text.length >= start ? start : 0;
    unit.translation = text;
    unit.spans = keep.concat(roughSpans(text.slice(cut)).map(([a, b]) => [a + cut, b + cut]));
    unit.data = Object.assign({}, old, {
      confidence: (old.confidence || []).slice(0, i),
      alignment: (old.alignment || []).filter(([t]) => t < i),
    });
  }

  // A status message that ends with a text exactly as it reads ("Sentence 2 now reads: …"), with a
  // full stop to end the message only where the text does not end a sentence itself: never
  // "…station?." or "o'clock..".
  function ended(message) {
    return /[.!?…]["'”’»)\]]*$/.test(message.trim()) ? message : message + ".";
  }

  // The chosen completion replaces the sentence's translation at once; then /api/explain, given
  // that text, tells how the model aligns it and how sure it is of each word, and the sentence
  // is drawn again. A later choice or translation wins over an answer still on its way.
  async function choose(u, i, option) {
    const unit = units[u];
    const mine = generation;
    const ticket = (unit.ticket || 0) + 1;
    unit.ticket = ticket;
    rough(unit, i, option.text);
    unit.pending = true;
    redraw(u);
    focusWord(u, i);
    const reading = "Sentence " + (u + 1) + " now reads: " + option.text;
    status.textContent = reading + " (aligning the new words…)";
    let data = null;
    let failure = null;
    try {
      data = await post("/api/explain", Object.assign({ q: unit.source, translation: option.text }, unit.langs));
    } catch (e) {
      failure = e.message;
    }
    if (mine !== generation || ticket !== unit.ticket) return;
    const active = document.activeElement;
    const focused = active && output.contains(active) && active.dataset.unit === String(u) ? Number(active.dataset.word) : null;
    unit.pending = false;
    if (data) explained(unit, data);
    redraw(u);
    if (focused != null) focusWord(u, focused);
    status.textContent = failure ? reading + " (no alignment or confidence for the new words: " + failure + ")." : ended(reading);
  }

  // --------------------------------------------------------------------------- loading

  function remembered(key, data) {
    explanations.delete(key);
    explanations.set(key, data);
    if (explanations.size > EXPLAINED) explanations.delete(explanations.keys().next().value);
  }

  async function explainUnit(unit) {
    try {
      const key = unit.langs.source + ">" + unit.langs.target + " " + (unit.langs.formality || "") + "\u0000" + unit.source;
      let data = explanations.get(key);
      if (!data) data = await post("/api/explain", Object.assign({ q: unit.source }, unit.langs));
      remembered(key, data);
      explained(unit, data);
    } catch (e) {
      // Too long for the inspector (MAX_ATTENTION_CHARS), say: translate it plainly, show it as text.
      unit.error = e.message;
      unit.data = null;
      try {
        const body = await post("/translate", Object.assign({ q: unit.source, format: "text" }, unit.langs));
        unit.translation = body.translatedText;
      } catch (e2) {
        unit.translation = null;  // no text to show for it: the inspector gives up (see inspect)
      }
      unit.spans = [];
      unit.sourceSpans = [];
    }
  }

  // The sentences of q as the pipeline cuts them: /api/explain and /api/complete take one at a
  // time, and their translations, each after its separator, are the translation shown.
  async function sentencesOf(q) {
    const langs = languages();
    const answer = await post("/api/sentences", Object.assign({ q: q }, langs));
    return answer.sentences.map((s) => ({ source: s.text, sourceSep: s.separator, langs: langs }));
  }

  // Each sentence's translation in its place in the translation shown, with the text between them
  // taken from there (unit.sep); a sentence found there as written was kept as it is (not German).
  // Returns what follows the last sentence, or null when the sentences do not make up the text.
  function fit(todo, translation) {
    let at = 0;
    for (const unit of todo) {
      const start = at + /^\s*/.exec(translation.slice(at))[0].length;
      if (!translation.startsWith(unit.translation, start)) {
        if (!translation.startsWith(unit.source, start)) return null;
        Object.assign(unit, { translation: unit.source, data: null, spans: [], sourceSpans: [], kept: true });
      }
      unit.sep = translation.slice(at, start);
      at = start + unit.translation.length;
    }
    const tail = translation.slice(at);
    return tail.trim() ? null : tail;
  }

  async function inspect(q, translation) {
    const mine = ++generation;
    units = [];
    plain(translation);
    if (!q || !q.trim()) return;
    let todo;
    try {
      todo = await sentencesOf(q);
    } catch (e) {
      todo = [];
      if (mine === generation) {
        panel.hidden = false;
        status.textContent = "The inspector is not available for this text: " + e.message;
      }
    }
    if (mine !== generation || !todo.length) return;
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
    const tail = fit(todo, translation);
    if (tail == null) {
      status.textContent = "The inspector is not available for this text: its sentences' translations differ from the translation shown.";
      return;
    }
    units = todo;
    render(tail);
    const failed = units.filter((u) => u.error).length;
    status.textContent = failed ? failed + " of " + units.length + " sentences could not be explained (" +
      units.find((u) => u.error).error + "); they are shown as plain text." : "";
  }

  result.addEventListener("translation", (event) => inspect(event.detail.source, event.detail.translation));
  if (!result.hidden && result.dataset.source) inspect(result.dataset.source, output.textContent);
})();
