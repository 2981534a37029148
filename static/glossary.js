// The translate page's glossary editor: rows of term -> translation (German -> English, or English ->
// German while the page translates English), kept in this browser
// (localStorage) and sent as /translate's `glossary` (the pairs themselves) with every text and
// file this page translates while it has terms (translate.js, files.js read window.glossary).
//
// - The rules are the server's (pipeline/glossary.py, check_entries), checked here as you type so
//   that the message is beside its row: a term and its translation are normalized (NFC, runs of
//   whitespace as one space, none around), neither may be empty or over 100 characters, a term
//   needs a letter, and a term may be given once (ignoring case). The messages are the server's
//   with a capital letter (a row's term mistakes before its translation's: the server names only
//   the first it finds, translation first); they show once the field or row is left, then follow
//   every keystroke. A row with a message is left out of the glossary sent (the others still
//   apply); a row left empty is no entry and no mistake. Should the server still refuse the
//   glossary, its own message shows in the page's error area.
// - Changing the glossary that applies fires "glossarychange" on document (translate.js translates
//   the text shown again); editing a row that has a message, or that is empty, changes nothing.
// - "Save as stored glossary" stores the applied terms with POST /glossaries and shows the id,
//   for API clients (`"glossary": "<id>"`); the page itself keeps sending the pairs.
// Everything is drawn with textContent and DOM calls: nothing typed is parsed as HTML.
"use strict";

(function () {
  const section = document.getElementById("glossary");
  if (!section) return;
  const STORE = "translate:glossary";  // localStorage: {open, rows: [[term, translation], ...]}
  const MAX_TERM_CHARS = 100;          // pipeline.glossary.MAX_TERM_CHARS
  const LETTER = /[\p{L}\p{Nl}\p{No}]/u;  // model.data.lexicon.WORD needs one: a letter, not a digit
  const list = document.getElementById("glossary-rows");
  const addButton = document.getElementById("glossary-add");
  const count = document.getElementById("glossary-count");
  const saveForm = document.getElementById("glossary-save");
  const saveName = document.getElementById("glossary-name");
  const saveStatus = document.getElementById("glossary-save-status");
  const result = document.getElementById("result");
  const NAMES = window.api.NAMES;

  // The languages translated from and into (translate.js keeps them on #result, and fires
  // "languageschange" on document when they change): the rows' labels and lang attributes.
  function languages() {
    return { source: (result && result.dataset.sourceLanguage) || "de",
      target: (result && result.dataset.targetLanguage) || "en" };
  }

  document.addEventListener("languageschange", () => draw());

  let rows = [];         // {term, translation, termLeft, left}: as typed, blank rows included
  let applied = "{}";    // the JSON of the pairs that apply, to tell when they change
  let nextId = 1;        // element ids of rows, never reused

  // ------------------------------------------------------------------------ the server's rules

  function normalize(text) {
    return text.normalize("NFC").split(/\s+/).filter(Boolean).join(" ");
  }

  function chars(text) {
    return Array.from(text).length;  // code points, as Python counts
  }

  // Python's repr() of a string as the server shows a term (_shown): at most 40 characters.
  function shown(text) {
    const cut = chars(text) <= 40 ? text : Array.from(text).slice(0, 40).join("") + "…";
    const quote = cut.includes("'") && !cut.includes('"') ? '"' : "'";
    return quote + cut.replace(/\\/g, "\\\\").split(quote).join("\\" + quote) + quote;
  }

  function fold(text) {  // str.casefold() for German: lower case, ß and ẞ as ss
    return text.toLowerCase().replace(/ß/g, "ss");
  }

  // Each row's message ("" for none) and the pairs that apply, in order.
  function check() {
    const seen = new Map();  // folded term -> the term as first given
    const pairs = [];
    const messages = rows.map((row) => {
      const term = normalize(row.term);
      const translation = normalize(row.translation);
      if (!term && !translation) return "";  // an empty row: not an entry yet
      // The term's mistakes first (the server stops at its first one, translation first; both
      // are mistakes, and the term's is the one to know while the translation is still to come).
      let message = "";
      if (!term) message = "a term is empty";
      else if (chars(term) > MAX_TERM_CHARS) {
        message = "the term " + shown(term) + " has " + chars(term) + " characters, more than " + MAX_TERM_CHARS;
      } else if (!LETTER.test(term)) message = "the term " + shown(term) + " has no letters";
      else if (seen.has(fold(term))) {
        message = "the term " + shown(term) + " is given twice (also as " + shown(seen.get(fold(term))) + ")";
      } else if (!translation) message = "the translation of " + shown(term) + " is empty";
      else if (chars(translation) > MAX_TERM_CHARS) {
        message = "the translation " + shown(translation) + " has " + chars(translation) + " characters, more than " +
          MAX_TERM_CHARS;
      }
      if (term && !seen.has(fold(term))) seen.set(fold(term), term);
      if (message) return message.charAt(0).toUpperCase() + message.slice(1);
      pairs.push([term, translation]);
      return "";
    });
    return { messages: messages, pairs: pairs };
  }

  // ------------------------------------------------------------------------ storage

  function load() {
    try {
      const saved = JSON.parse(localStorage.getItem(STORE) || "null");
      if (saved && Array.isArray(saved.rows)) {
        rows = saved.rows.filter((r) => Array.isArray(r) && typeof r[0] === "string" && typeof r[1] === "string")
          .map((r) => ({ term: r[0], translation: r[1], termLeft: true, left: true }));
        section.open = Boolean(saved.open);
      }
    } catch (e) { /* storage off or spoilt: an empty glossary */ }
  }

  function save() {
    try {
      const kept = rows.filter((r) => r.term || r.translation).map((r) => [r.term, r.translation]);
      if (kept.length || section.open) localStorage.setItem(STORE, JSON.stringify({ open: section.open, rows: kept }));
      else localStorage.removeItem(STORE);
    } catch (e) { /* storage off: the glossary lasts as long as the page */ }
  }

  // ------------------------------------------------------------------------ drawing

  function element(tag, props, text) {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    if (text != null) node.textContent = text;
    return node;
  }

  function rowElement(row, index) {
    const id = nextId++;
    const li = element("li", { className: "glossary-row" });
    const termId = "glossary-term-" + id;
    const translationId = "glossary-translation-" + id;
    const messageId = "glossary-message-" + id;
    const langs = languages();
    const term = element("input", { type: "text", id: termId, value: row.term, lang: langs.source, autocomplete: "off",
      spellcheck: false, className: "glossary-term" });
    const translation = element("input", { type: "text", id: translationId, value: row.translation, lang: langs.target,
      autocomplete: "off", spellcheck: false, className: "glossary-translation" });
    for (const input of [term, translation]) input.setAttribute("aria-describedby", messageId);
    const arrow = element("span", { className: "glossary-arrow" }, "→");
    arrow.setAttribute("aria-hidden", "true");
    const remove = element("button", { type: "button", className: "secondary glossary-remove" }, "Remove");
    remove.setAttribute("aria-label", "Remove term " + (index + 1));
    const message = element("p", { id: messageId, className: "field-error" });
    li.append(
      element("label", { htmlFor: termId, className: "visually-hidden glossary-term-label" },
        NAMES[langs.source] + " term " + (index + 1)), term, arrow,
      element("label", { htmlFor: translationId, className: "visually-hidden glossary-translation-label" },
        NAMES[langs.target] + " term " + (index + 1)),
      translation, remove, message);

    term.addEventListener("input", () => { row.term = term.value; changed(); });
    translation.addEventListener("input", () => { row.translation = translation.value; changed(); });
    // Messages wait until they can help: the term's once its field has been left after a change,
    // the translation's once the row has been left; then they follow every keystroke.
    term.addEventListener("change", () => { row.termLeft = true; changed(); });
    li.addEventListener("focusout", (event) => {
      if (li.contains(event.relatedTarget) || row.left) return;
      row.left = true;
      changed();
    });
    remove.addEventListener("click", () => removeRow(rows.indexOf(row)));
    return li;
  }

  function draw() {
    if (!rows.length) rows.push({ term: "", translation: "", termLeft: false, left: false });
    list.replaceChildren(...rows.map(rowElement));
    showMessages(check());
  }

  function showMessages(state) {
    Array.from(list.children).forEach((li, i) => {
      const message = state.messages[i];
      const translationWrong = message.startsWith("The translation");  // else the term is
      const text = rows[i].left || (rows[i].termLeft && !translationWrong) ? message : "";
      li.querySelector(".field-error").textContent = text;
      li.querySelector(".glossary-term").setAttribute("aria-invalid", String(Boolean(text) && !translationWrong));
      li.querySelector(".glossary-translation").setAttribute("aria-invalid", String(Boolean(text) && translationWrong));
    });
    const n = state.pairs.length;
    count.textContent = n ? "(" + n + (n === 1 ? " term" : " terms") + ")" : "";
    saveForm.hidden = n === 0;
  }

  // ------------------------------------------------------------------------ editing

  function changed() {
    const state = check();
    showMessages(state);
    save();
    const now = JSON.stringify(Object.fromEntries(state.pairs));
    if (now !== applied) {
      applied = now;
      document.dispatchEvent(new CustomEvent("glossarychange", { detail: { glossary: api.entries() } }));
    }
  }

  function addRow() {
    rows.push({ term: "", translation: "", termLeft: false, left: false });
    draw();
    list.lastElementChild.querySelector(".glossary-term").focus();
  }

  function removeRow(index) {
    if (index < 0) return;
    rows.splice(index, 1);
    const empty = !rows.length;
    draw();
    changed();
    // the focus stays in the list: on the row that took the removed one's place, else the one before
    if (empty) list.querySelector(".glossary-term").focus();
    else list.children[Math.min(index, rows.length - 1)].querySelector(".glossary-term").focus();
  }

  addButton.addEventListener("click", addRow);
  section.addEventListener("toggle", save);

  // Enter in a row's field adds the next row (or moves to the empty row below), as in a table.
  list.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.isComposing || !event.target.matches(".glossary-translation")) return;
    event.preventDefault();
    const li = event.target.closest("li");
    if (li.nextElementSibling) li.nextElementSibling.querySelector(".glossary-term").focus();
    else addRow();
  });

  saveForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const entries = api.entries();
    if (!entries) return;
    saveStatus.textContent = "Saving…";
    try {
      const stored = await window.api.post("/glossaries", { name: saveName.value, entries: entries });
      saveStatus.textContent = "Stored as glossary " + stored.id + " (" + stored.entry_count +
        (stored.entry_count === 1 ? " term" : " terms") + "): send \"glossary\": \"" + stored.id + "\" to /translate.";
    } catch (e) {
      saveStatus.textContent = "Not stored: " + e.message;
    }
  });

  // ------------------------------------------------------------------------ for the other scripts

  const api = {
    // The pairs that apply, {term: translation}, or null when none do.
    entries() {
      const pairs = check().pairs;
      return pairs.length ? Object.fromEntries(pairs) : null;
    },
  };
  window.glossary = api;

  load();
  draw();
  applied = JSON.stringify(api.entries() || {});
  section.hidden = false;  // without JavaScript there is no glossary (the <noscript> says so)
})();
