// The dictionary panel beside the translation (app/dictionary.py): for a text of one to three words,
// Ding's entries from GET /api/dictionary, drawn as templates/index.html draws them (textContent
// only: nothing the dictionary or the user wrote is parsed as HTML); hidden for any other text. It
// follows the translation shown (translate.js's "translation" event on #result) and hides at once
// when the text typed grows past three words. The first entries are shown, the rest under "More
// entries"; phrases are behind a <details> each, so everything opens with the keyboard. The text
// is looked up in the language it is translated from (#result's data-source-language: German, or
// English for English into German), and again when that changes.
"use strict";

(function () {
  const panel = document.getElementById("dictionary");
  const result = document.getElementById("result");
  const input = document.getElementById("q");
  if (!panel || !result) return;
  const status = document.getElementById("dictionary-status");
  const list = document.getElementById("dictionary-entries");
  const more = document.getElementById("dictionary-more");
  const moreCount = document.getElementById("dictionary-more-count");
  const maxWords = Number(panel.dataset.maxWords);
  const maxChars = Number(panel.dataset.maxChars);
  const shownEntries = Number(panel.dataset.shown);
  const GENDERS = { m: "masculine", f: "feminine", n: "neuter" };
  const CACHE_SIZE = 50;

  const cache = new Map();  // source + NUL + query -> answer, least recently used first
  let controller = null;    // the lookup in flight, aborted by a newer one
  // the language looked up in, and the key (source + NUL + query) of the answer shown
  function source() {
    return result.dataset.sourceLanguage || "de";
  }
  let current = panel.hidden ? null : source() + "\u0000" + panel.dataset.query;

  // The words of a text as the server counts them (whitespace-separated), joined by one space;
  // null when the panel has nothing to show for it.
  function lookupText(text) {
    const words = text.trim().split(/\s+/).filter(Boolean);
    return words.length >= 1 && words.length <= maxWords && text.length <= maxChars ? words.join(" ") : null;
  }

  function element(tag, className, text, lang) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    if (lang) node.lang = lang;
    return node;
  }

  function pairs(items) {
    return items.map((pair) => {
      const li = element("li");
      const arrow = element("span", "dict-arrow", " → ");
      arrow.setAttribute("aria-hidden", "true");
      li.append(element("span", null, pair.de, "de"), arrow, element("span", "visually-hidden", ": "),
        element("span", null, pair.en, "en"));
      return li;
    });
  }

  function labelled(className, key, text, lang) {
    const p = element("p", className);
    p.append(element("span", "dict-key", key + ":"), " ", element("span", null, text, lang));
    return p;
  }

  // An entry of an answer looked up in ``lang``: its headword, forms and synonyms are in that
  // language, its senses in the other.
  function entryElement(entry, lang) {
    const other = lang === "de" ? "en" : "de";
    const li = element("li", "dict-entry");
    const head = element("p", "dict-head");
    head.append(element("strong", "dict-headword", entry.headword, lang));
    if (entry.word_class) {
      const genders = entry.gender ? entry.gender.split(", ").map((g) => GENDERS[g] || g).join(", ") : "";
      head.append(" ", element("span", "dict-class", entry.word_class + (genders ? ", " + genders : "")));
    }
    for (const label of entry.labels) head.append(" ", element("span", "dict-label", "[" + label + "]"));
    li.append(head);
    if (entry.forms.length) {
      li.append(labelled("dict-forms", entry.word_class === "noun" ? "Plural" : "Forms", entry.forms.join(", "), lang));
    }
    li.append(element("p", "dict-senses", entry.senses.join("; "), other));
    if (entry.synonyms.length) li.append(labelled("dict-synonyms", "Also", entry.synonyms.join("; "), lang));
    if (entry.examples.length) {
      const examples = element("ul", "dict-examples");
      examples.append(...pairs(entry.examples));
      li.append(examples);
    }
    if (entry.phrases.length) {
      const details = element("details", "dict-phrases");
      const phrases = element("ul");
      phrases.append(...pairs(entry.phrases));
      details.append(element("summary", null, "Phrases (" + entry.phrases.length + ")"), phrases);
      li.append(details);
    }
    return li;
  }

  function draw(answer) {
    const drawn = (entry) => entryElement(entry, answer.source);
    list.replaceChildren(...answer.entries.slice(0, shownEntries).map(drawn));
    const rest = answer.entries.slice(shownEntries);
    const restList = more.querySelector("ol");
    restList.replaceChildren(...rest.map(drawn));
    moreCount.textContent = String(rest.length);
    more.open = false;
    more.hidden = rest.length === 0;
    status.textContent = answer.entries.length ? "" : "No dictionary entry for “" + answer.query + "”.";
    panel.dataset.query = answer.query;
    panel.removeAttribute("aria-busy");
    panel.hidden = false;
  }

  function hide() {
    if (controller) controller.abort();
    controller = null;
    current = null;
    panel.removeAttribute("aria-busy");
    panel.hidden = true;
  }

  async function update(text) {
    const q = lookupText(text);
    if (q === null) {
      hide();
      return;
    }
    const lang = source();
    const key = lang + "\u0000" + q;
    if (key === current) return;
    if (controller) controller.abort();
    current = key;
    if (cache.has(key)) {
      const answer = cache.get(key);
      cache.delete(key);
      cache.set(key, answer);
      draw(answer);
      return;
    }
    const mine = new AbortController();
    controller = mine;
    panel.setAttribute("aria-busy", "true");
    try {
      const answer = await window.api.get("/api/dictionary?" + new URLSearchParams({ q: q, source: lang }).toString(),
        mine.signal);
      if (mine !== controller) return;
      cache.set(key, answer);
      if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value);
      draw(answer);
    } catch (e) {
      if (e.name === "AbortError" || mine !== controller) return;
      list.replaceChildren();
      more.hidden = true;
      status.textContent = "The dictionary did not answer: " + e.message;
      panel.hidden = false;
      current = null;  // asked again next time
    } finally {
      if (mine === controller) {
        controller = null;
        panel.removeAttribute("aria-busy");
      }
    }
  }

  result.addEventListener("translation", (event) => update(event.detail.source || ""));
  // The language translated from changed (translate.js): the text shown is looked up in the new one.
  document.addEventListener("languageschange", () => {
    if (!result.hidden && result.dataset.source) update(result.dataset.source);
  });
  // More than three words typed: the panel goes at once, before the translation comes; typed back
  // to the text whose translation is still shown (no new translation, so no event): it comes back.
  input.addEventListener("input", () => {
    const q = lookupText(input.value);
    if (q === null) hide();
    else if (!result.hidden && q === lookupText(result.dataset.source || "")) update(input.value);
  });
})();
