// The translate page in place: translation as you type, the languages (the source detected or
// chosen; the direction, German into English or English into German where the server has both, and
// the swap button), Random, copy, the character counter, keyboard shortcuts and links that always fit in a URL.
// Without JavaScript the same form is POSTed and redirected to the text's page (/?q=..., or a stored
// /?p=... for a long text; app/pages.py), so this file only adds to a page that works without it.
//
// - Typing: the text is translated DEBOUNCE_MS after the last keystroke; a newer request aborts the
//   one in flight (AbortController), so an older answer can never overwrite a newer one. The whole
//   text is sent each time: the server remembers each sentence's translation (TRANSLATION_CACHE),
//   so only new or changed sentences reach the model, and the inspector explains only sentences it
//   has not explained before (inspector.js). Texts translated before are shown from a small cache
//   here without a request (undo, going back to an earlier text).
// - Translate, Ctrl+Enter (Cmd+Enter) and Random translate at once; Ctrl+Enter submits the form as
//   the Translate button does, so "random" alone gives a random sentence either way, as /?q=random.
// - Links: a text whose "q=..." fits in data-url-bytes bytes is linked as /?q=..., and the address bar
//   shows that link. A longer one is stored on the server (POST /api/permalink, /?p=<id>) only when
//   its link is asked for: a click on Permalink, Attention or Beam search (which need a URL). Until
//   then the address bar shows the bare page, "/", and the text waits in history.state (and
//   sessionStorage) for a reload, which shows it again; it never leaves the browser but to be
//   translated.
// - Glossary: while the glossary editor (glossary.js, window.glossary) has terms, every request
//   to /translate carries them as `glossary` (the pairs), and a change to them translates the text
//   shown again (after DEBOUNCE_MS, as typing does), a page rendered by the server included. Links
//   name the text only: a permalink opened elsewhere translates it with that browser's glossary.
// - API key: where the server requires one, api.js sends the key field's with every request; a
//   changed key translates the text again, and a link opened without it (the server answers the
//   page untranslated, data-key-refused) is translated here with it.
"use strict";

(function () {
  const DEBOUNCE_MS = 400;
  const CACHE_SIZE = 50;
  const NAMES = window.api.NAMES;

  const form = document.getElementById("translate-form");
  const input = document.getElementById("q");
  const sourceSelect = document.getElementById("source");
  const targetSelect = document.getElementById("target");  // a hidden input where one direction is served
  const swapButton = document.getElementById("swap-button");
  const formalitySelect = document.getElementById("formality");  // where an en-de model is served
  const formalityChoice = document.getElementById("formality-choice");
  const status = document.getElementById("status");
  const error = document.getElementById("error");
  const result = document.getElementById("result");
  const output = document.getElementById("translation");
  const counter = document.getElementById("char-count");
  const detectedBox = document.getElementById("detected");
  const hint = document.getElementById("english-hint");
  const forceGerman = document.getElementById("force-german");
  const copyButton = document.getElementById("copy-button");
  const copyStatus = document.getElementById("copy-status");
  const translateButton = document.getElementById("translate-button");
  const randomButton = document.getElementById("random-button");
  const heldOutButton = document.getElementById("held-out-button");
  const linksBox = document.querySelector("#result .links");
  const permalink = document.getElementById("permalink");
  const maxChars = Number(form.dataset.maxChars);
  const urlBytes = Number(form.dataset.urlBytes);
  const numbers = new Intl.NumberFormat("en-US");
  // "Translate · German → English": the page's name, then its direction (base.html), renamed with it
  const pageName = document.title.slice(0, document.title.lastIndexOf(" · "));

  let timer = null;        // the typed text's pending translation
  let controller = null;   // the request in flight, aborted by any newer one
  // The languages chosen: source ("auto", "de" or "en"), target, and from, the language translated
  // from (for auto, the one the target is translated from: each language is one pair's target).
  // formality: how German output addresses the reader ("formal", "informal", "any"); null for English.
  function languages() {
    const source = sourceSelect.value;
    const target = targetSelect.value;
    const formality = target === "de" && formalitySelect ? formalitySelect.value : null;
    return { source: source, target: target, from: source === "auto" ? other(target) : source, formality: formality };
  }

  function other(code) {
    return code === "de" ? "en" : "de";
  }

  function sameLanguages(a, b) {
    return a.source === b.source && a.target === b.target && a.formality === b.formality;
  }

  // the text shown, its languages and the glossary (JSON, "" for none) it was translated with
  let shown = result.hidden ? null : { text: result.dataset.source, langs: languages(), glossary: "" };
  // languages + NUL + glossary + NUL + text -> {translation, detected}, least recently used first
  const cache = new Map();
  const links = new Map(); // text -> id of its stored link
  const stored = new URLSearchParams(location.search).get("p");
  if (stored && shown) links.set(shown.text, stored);
  const SAVED = "translate:text";  // sessionStorage: the long unstored text shown, for a reload
  let storing = null;      // the text whose stored link is being made

  // ------------------------------------------------------------------------ the text

  // Characters as the server counts them (code points: an emoji is one, not two).
  function length(text) {
    let n = 0;
    for (const _ of text) n++;  // eslint-disable-line no-unused-vars
    return n;
  }

  // A paste that would pass the limit: the box takes what fits, cut after the last whole word (the
  // browser's maxlength would cut mid-word, silently), the page says how much was left out and
  // offers the whole text as a .txt file on the Files tab (files.js), which takes far more.
  const tooLong = document.getElementById("too-long");
  const tooLongText = document.getElementById("too-long-text");
  let pastedWhole = null;  // the whole text, for the Files tab

  input.addEventListener("paste", (event) => {
    const pasted = event.clipboardData ? event.clipboardData.getData("text/plain") : "";
    const before = input.value.slice(0, input.selectionStart);
    const after = input.value.slice(input.selectionEnd);
    const whole = before + pasted + after;
    if (length(whole) <= maxChars) return;
    event.preventDefault();
    const room = maxChars - length(before) - length(after);
    let fitting = Array.from(pasted).slice(0, Math.max(room, 0)).join("");
    const cut = fitting.search(/\s\S*$/);  // the end of the last whole word
    if (cut > 0 && fitting.length < pasted.length) fitting = fitting.slice(0, cut);
    input.setRangeText(fitting, input.selectionStart, input.selectionEnd, "end");
    pastedWhole = whole;
    tooLongText.textContent = "The pasted text has " + numbers.format(length(whole)) + " characters; this box takes " +
      numbers.format(maxChars) + ", so it holds the text up to the last whole word that fits (" +
      numbers.format(length(input.value)) + ").";
    tooLong.hidden = false;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });

  input.addEventListener("input", () => { if (!input.value) tooLong.hidden = true; });

  document.getElementById("as-file-button").addEventListener("click", () => {
    const fileInput = document.getElementById("file-input");
    if (!fileInput || pastedWhole === null) return;
    const files = new DataTransfer();
    files.items.add(new File([pastedWhole], "text.txt", { type: "text/plain" }));
    fileInput.files = files.files;
    fileInput.dispatchEvent(new Event("change", { bubbles: true }));
    document.getElementById("tab-files").click();
  });

  function updateCounter() {
    const n = length(input.value);
    counter.firstChild.textContent = numbers.format(n) + " / " + numbers.format(maxChars);
    counter.classList.toggle("near", n > 0.9 * maxChars);
  }

  // The glossary's pairs ({term: translation}) to send, or null: none, or no editor on the page.
  function glossary() {
    return window.glossary ? window.glossary.entries() : null;
  }

  function typedRandom() {
    return Boolean(randomButton) && input.value.trim().toLowerCase() === "random";
  }

  // ------------------------------------------------------------------------ links

  function query(params) {
    return new URLSearchParams(params).toString();
  }

  function fitsInUrl(text) {
    return query({ q: text }).length <= urlBytes;
  }

  // The links of a text: by q when short, by its stored link p (id) when it has one; null: a long
  // text not stored (yet).
  function linkArgs(text, id) {
    return fitsInUrl(text) ? { q: text } : id ? { p: id } : null;
  }

  // The page's languages in its links, where they are not the defaults (auto into English), and
  // the model of the attention and beam search views, where it is not German into English.
  function languageArgs(langs) {
    const args = {};
    if (langs.source !== "auto") args.source = langs.source;
    if (langs.target !== "en") args.target = langs.target;
    if (langs.formality && langs.formality !== "formal") args.formality = langs.formality;
    return args;
  }

  function pairArgs(langs) {
    return langs.from === "de" && langs.target === "en" ? {} : { source: langs.from, target: langs.target };
  }

  function hrefs(args, langs) {
    return args ? {
      page: "/?" + query(Object.assign({}, args, languageArgs(langs))),
      attention: "/attention?" + query(Object.assign({}, args, pairArgs(langs))),
      beam: "/beam?" + query(Object.assign({}, args, pairArgs(langs))),
    } : { page: "/", attention: "/attention", beam: "/beam" };
  }

  function saved(state) {
    try {
      if (state) sessionStorage.setItem(SAVED, JSON.stringify(state));
      else sessionStorage.removeItem(SAVED);
    } catch (e) { /* storage off: history.state still holds it */ }
  }

  // A long text without a stored link: its links say so (linkClicked stores it when one is
  // followed), and the address bar goes back to "/", the text kept in history.state for a reload.
  function setLinks(text, langs, id) {
    const args = linkArgs(text, id);
    const to = hrefs(args, langs);
    document.getElementById("attention-link").href = to.attention;
    document.getElementById("beam-link").href = to.beam;
    forceGerman.href = "/?" + query(Object.assign({}, args || {}, languageArgs(Object.assign({}, langs, { source: langs.from }))));
    permalink.href = to.page;
    linksBox.classList.toggle("unstored", !args);
    if (args) {
      history.replaceState(null, "", to.page);
      saved(null);
    } else {
      const state = { q: text, source: langs.source, target: langs.target, formality: langs.formality };
      history.replaceState(state, "", "/");
      saved(state);
    }
  }

  // Permalink, Attention, Beam search for a long text not stored yet: store it now (the one place
  // this page sends a text to POST /api/permalink), then follow the link (in a new tab when asked).
  async function linkClicked(event) {
    if (!shown || linkArgs(shown.text, links.get(shown.text))) return;  // its href is right as it is
    if (event.type === "auxclick" && event.button !== 1) return;
    event.preventDefault();
    const text = shown.text;
    const langs = shown.langs;
    const which = event.currentTarget.id === "attention-link" ? "attention"
      : event.currentTarget.id === "beam-link" ? "beam" : "page";
    const newTab = event.button === 1 || event.ctrlKey || event.metaKey || event.shiftKey;
    if (storing === text) return;  // a second click while the first is on its way
    storing = text;
    status.textContent = "Making a permalink…";
    try {
      const body = await window.api.post("/api/permalink", { q: text });
      links.set(text, body.id);
      if (shown && shown.text === text) setLinks(text, shown.langs, body.id);
      status.textContent = "";
      const href = hrefs({ p: body.id }, langs)[which];
      if (newTab) window.open(href, "_blank", "noopener");
      else location.assign(href);
    } catch (e) {
      status.textContent = "No link: " + e.message;
    } finally {
      storing = null;
    }
  }

  // ------------------------------------------------------------------------ showing

  function setBusy(message) {
    result.setAttribute("aria-busy", message ? "true" : "false");
    status.textContent = message || "";
  }

  function showError(message) {
    error.textContent = message;
    error.hidden = false;
    result.hidden = true;
  }

  // A text detected in the target language: its sentences clearly in it are kept (the hint says so).
  function showDetected(langs, detected) {
    const auto = langs.source === "auto";
    const known = auto && detected && detected.confidence > 0;
    detectedBox.textContent = known
      ? "Detected: " + (NAMES[detected.language] || detected.language) + " (" + Math.round(detected.confidence) + "%)"
      : "";
    hint.hidden = !(auto && detected && detected.language === langs.target);
  }

  // The languages' names and lang attributes wherever the page shows them (data-language-name:
  // "source" or "target"); result's data-*-language tell inspector.js and dictionary.js.
  function showLanguages(langs) {
    for (const node of document.querySelectorAll("[data-language-name]")) {
      node.textContent = NAMES[node.dataset.languageName === "source" ? langs.from : langs.target];
    }
    document.title = pageName + " · " + NAMES[langs.from] + " → " + NAMES[langs.target];
    input.lang = langs.from;
    output.lang = langs.target;
    if (formalityChoice) formalityChoice.hidden = langs.target !== "de";
    document.getElementById("references").lang = langs.target;
    const words = document.getElementById("source-words");
    if (words) words.lang = langs.from;
    const changed = result.dataset.sourceLanguage !== langs.from || result.dataset.targetLanguage !== langs.target;
    result.dataset.sourceLanguage = langs.from;
    result.dataset.targetLanguage = langs.target;
    result.dataset.formality = langs.formality || "";
    if (changed) document.dispatchEvent(new CustomEvent("languageschange", { detail: langs }));
  }

  // textContent only: translations and references are never parsed as HTML. `sample`: Random's
  // answer (references, chrf and the split its sentence is from), null for a text typed.
  // warnings: what the translation may have got wrong ([{check, message}], /translate's "warnings")
  function show(text, langs, translation, detected, sample, id, terms, warnings) {
    error.hidden = true;
    output.textContent = translation;
    const warned = document.getElementById("warnings");
    warned.replaceChildren(...(warnings || []).map((warning) => {
      const li = document.createElement("li");
      li.dataset.check = warning.check;
      li.textContent = warning.message;
      return li;
    }));
    warned.hidden = !(warnings && warnings.length);
    const references = sample ? sample.references : [];
    const block = document.getElementById("references-block");
    const list = document.getElementById("references");
    list.replaceChildren(...references.map((ref) => {
      const li = document.createElement("li");
      li.textContent = ref;
      return li;
    }));
    block.hidden = !references.length;
    document.getElementById("chrf").textContent = sample ? sample.chrf.toFixed(1) : "";
    for (const label of document.querySelectorAll("#reference-split [data-split]")) {
      label.hidden = !sample || label.dataset.split !== sample.split;
    }
    showLanguages(langs);
    showDetected(langs, detected);
    setLinks(text, langs, id);
    result.hidden = false;
    shown = { text: text, langs: langs, glossary: terms || "" };
    // inspector.js explains the new translation word by word
    result.dataset.source = text;
    result.dispatchEvent(new CustomEvent("translation", { detail: { source: text, translation: translation } }));
  }

  function clear() {
    cancel();
    shown = null;
    error.hidden = true;
    result.hidden = true;
    setBusy("");
    showDetected(languages(), null);
    history.replaceState(null, "", "/");
    saved(null);
    result.dataset.source = "";
    result.dispatchEvent(new CustomEvent("translation", { detail: { source: "", translation: "" } }));
  }

  // ------------------------------------------------------------------------ requests

  function cancel() {
    clearTimeout(timer);
    timer = null;
    if (controller) controller.abort();
    controller = null;
  }

  function remember(key, answer) {
    cache.delete(key);
    cache.set(key, answer);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value);
  }

  async function translate(text, langs) {
    cancel();
    const mine = new AbortController();
    controller = mine;
    const pairs = glossary();
    const terms = pairs ? JSON.stringify(pairs) : "";
    const key = langs.source + ">" + langs.target + " " + langs.formality + "\u0000" + terms + "\u0000" + text;
    const cached = cache.get(key);
    const body = { q: text, source: langs.source, target: langs.target, format: "text" };
    if (langs.formality) body.formality = langs.formality;
    if (pairs) body.glossary = pairs;
    setBusy("Translating…");
    try {
      const answer = cached ? cached
        : await window.api.post("/translate", body, mine.signal)
          .then((reply) => ({ translation: reply.translatedText, detected: reply.detectedLanguage || null,
                              warnings: reply.warnings || [] }));
      if (mine !== controller) return;  // a newer request has begun: this answer is stale
      controller = null;
      remember(key, answer);
      show(text, langs, answer.translation, answer.detected, null, links.get(text), terms, answer.warnings);
      setBusy("Translated.");
    } catch (e) {
      if (mine !== controller || e.name === "AbortError") return;
      controller = null;
      setBusy("");
      showError(e.message);
    }
  }

  // split: "train" (Random) or "test" (Random held-out), the sample the sentence is drawn from
  async function random(split) {
    cancel();
    const mine = new AbortController();
    controller = mine;
    setBusy("Picking a random sentence…");
    try {
      const body = await window.api.get("/api/random?split=" + split, mine.signal);
      if (mine !== controller) return;
      controller = null;
      input.value = body.source;
      updateCounter();
      // a German sentence of the training corpus, translated into English
      if (languages().from !== "de" || languages().target !== "en") setLanguages("auto", "en");
      show(body.source, languages(), body.translation, null, body, null);
      setBusy("Random sentence translated.");
    } catch (e) {
      if (mine !== controller || e.name === "AbortError") return;
      controller = null;
      setBusy("");
      showError(e.message);
    }
  }

  // ------------------------------------------------------------------------ events

  input.addEventListener("input", () => {
    updateCounter();
    cancel();
    const text = input.value;
    if (!text.trim()) {
      clear();
      return;
    }
    if (typedRandom()) {  // only on purpose: Translate or Ctrl+Enter, never a pause in typing
      setBusy("Press Translate or Ctrl+Enter for a random sentence.");
      return;
    }
    timer = setTimeout(() => {
      timer = null;
      const langs = languages();
      const pairs = glossary();
      const terms = pairs ? JSON.stringify(pairs) : "";
      if (shown && shown.text === text && sameLanguages(shown.langs, langs) && shown.glossary === terms &&
          result.hidden === false) {
        setBusy("");  // typed back to the text shown
        return;
      }
      translate(text, langs);
    }, DEBOUNCE_MS);
  });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const submitter = event.submitter;
    if (submitter && submitter === heldOutButton) {
      random("test");
    } else if ((submitter && submitter === randomButton) || typedRandom()) {
      random("train");
    } else if (!input.value.trim()) {
      showError("Type some " + NAMES[languages().from] + " text first.");
      input.focus();
    } else {
      translate(input.value, languages());
    }
  });

  // Ctrl+Enter (Cmd+Enter) anywhere in the form: exactly what the Translate button does.
  form.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit(translateButton);
    }
  });

  // The languages chosen: a source and a target that are the same language are no pair, so the
  // other one follows (choosing English as the source makes German the target).
  function setLanguages(source, target) {
    sourceSelect.value = source;
    targetSelect.value = target;
    showLanguages(languages());
  }

  function languagesChanged() {
    if (input.value.trim() && !typedRandom()) translate(input.value, languages());
  }

  sourceSelect.addEventListener("change", () => {
    const source = sourceSelect.value;
    setLanguages(source, source === targetSelect.value ? other(source) : targetSelect.value);
    languagesChanged();
  });

  targetSelect.addEventListener("change", () => {
    const target = targetSelect.value;
    setLanguages(sourceSelect.value === target ? other(target) : sourceSelect.value, target);
    languagesChanged();
  });

  if (formalitySelect) formalitySelect.addEventListener("change", languagesChanged);

  // Swap: the other direction, and the translation shown becomes the text to translate.
  if (swapButton) {
    swapButton.hidden = false;
    swapButton.addEventListener("click", () => {
      const langs = languages();
      setLanguages(langs.target, langs.from);
      if (shown && !result.hidden && output.textContent) {
        input.value = output.textContent;
        updateCounter();
      }
      languagesChanged();
    });
  }

  // "Translate it as German" (the language translated from): the source is no longer detected.
  forceGerman.addEventListener("click", (event) => {
    event.preventDefault();
    const langs = languages();
    sourceSelect.value = langs.from;
    sourceSelect.focus();
    translate(input.value, languages());
  });

  for (const link of [permalink, document.getElementById("attention-link"), document.getElementById("beam-link")]) {
    link.addEventListener("click", linkClicked);
    link.addEventListener("auxclick", linkClicked);
  }

  // Copy: shown only where the page may write to the clipboard (a secure context).
  let copyTimer = null;
  if (navigator.clipboard && navigator.clipboard.writeText) copyButton.hidden = false;
  copyButton.addEventListener("click", async () => {
    clearTimeout(copyTimer);
    try {
      await navigator.clipboard.writeText(output.textContent);
      copyStatus.textContent = "Copied";
    } catch (e) {
      copyStatus.textContent = "Could not copy: " + e.message;
    }
    copyTimer = setTimeout(() => { copyStatus.textContent = ""; }, 3000);
  });

  // The glossary or the API key (api.js) changed: the text is translated again with it, after a
  // pause (both are typed letter by letter). Not "random" alone, not an empty text.
  let changeTimer = null;
  for (const change of ["glossarychange", "apikeychange"]) {
    document.addEventListener(change, () => {
      clearTimeout(changeTimer);
      changeTimer = setTimeout(() => {
        if (input.value.trim() && !typedRandom()) translate(input.value, languages());
      }, DEBOUNCE_MS);
    });
  }

  // A reload of "/" showing a long unstored text: the text again, from history.state (or, where the
  // browser kept no state, from sessionStorage), never from the URL.
  function restore() {
    if (shown) {  // the server showed the page's own text (?q=, ?p=), without the glossary
      if (glossary() && input.value === shown.text) translate(shown.text, shown.langs);
      return;
    }
    if ("keyRefused" in form.dataset) {  // the server would not translate the page's text without a key
      if (input.value.trim()) translate(input.value, languages());
      return;
    }
    let state = history.state;
    if (!(state && typeof state.q === "string")) {
      const navigation = performance.getEntriesByType("navigation")[0];
      try {
        state = navigation && navigation.type === "reload" ? JSON.parse(sessionStorage.getItem(SAVED) || "null") : null;
      } catch (e) {
        state = null;
      }
    }
    if (!state || typeof state.q !== "string" || !state.q.trim() || (input.value && input.value !== state.q)) return;
    input.value = state.q;
    const source = ["de", "en"].includes(state.source) ? state.source : "auto";
    const target = state.target === "de" && targetSelect.querySelector && targetSelect.querySelector("option[value=de]")
      ? "de" : "en";
    setLanguages(source === target ? other(target) : source, target);
    if (formalitySelect && ["formal", "informal", "any"].includes(state.formality)) formalitySelect.value = state.formality;
    translate(state.q, languages());
  }

  restore();
  updateCounter();
})();
