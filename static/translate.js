// Translate and Random without reloading the page. Without JavaScript the same form works as a
// plain GET (/?q=... and /?random=1), so this file only adds in-place updates.
"use strict";

(function () {
  const form = document.getElementById("translate-form");
  const input = document.getElementById("q");
  const status = document.getElementById("status");
  const error = document.getElementById("error");
  const result = document.getElementById("result");
  const buttons = form.querySelectorAll("button");

  function pageUrl(path, q) {
    return path + "?" + new URLSearchParams({ q: q }).toString();
  }

  function setBusy(busy, message) {
    buttons.forEach((b) => { b.disabled = busy; });
    form.setAttribute("aria-busy", busy ? "true" : "false");
    status.textContent = message || "";
  }

  function showError(message) {
    error.textContent = message;
    error.hidden = false;
    result.hidden = true;
  }

  // textContent only: translations and references are never parsed as HTML.
  function show(source, translation, references, chrf) {
    error.hidden = true;
    document.getElementById("translation").textContent = translation;
    const block = document.getElementById("references-block");
    const list = document.getElementById("references");
    list.replaceChildren(...(references || []).map((ref) => {
      const li = document.createElement("li");
      li.textContent = ref;
      return li;
    }));
    block.hidden = !(references && references.length);
    document.getElementById("chrf").textContent = chrf == null ? "" : chrf.toFixed(1);
    document.getElementById("attention-link").href = pageUrl("/attention", source);
    document.getElementById("beam-link").href = pageUrl("/beam", source);
    document.getElementById("permalink").href = pageUrl("/", source);
    result.hidden = false;
    history.replaceState(null, "", pageUrl("/", source));
    // inspector.js explains the new translation word by word
    result.dataset.source = source;
    result.dispatchEvent(new CustomEvent("translation", { detail: { source: source, translation: translation } }));
  }

  async function translate() {
    const q = input.value;
    if (!q.trim()) {
      showError("Type some German text first.");
      input.focus();
      return;
    }
    setBusy(true, "Translating…");
    try {
      const body = await window.api.post("/translate", { q: q, source: "de", target: "en", format: "text" });
      show(q, body.translatedText, [], null);
      setBusy(false, "Translated.");
    } catch (e) {
      setBusy(false, "");
      showError(e.message);
    }
  }

  async function random() {
    setBusy(true, "Picking a random sentence…");
    try {
      const body = await window.api.get("/api/random");
      input.value = body.source;
      show(body.source, body.translation, body.references, body.chrf);
      setBusy(false, "Random sentence translated.");
    } catch (e) {
      setBusy(false, "");
      showError(e.message);
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const submitter = event.submitter;
    const randomButton = document.getElementById("random-button");
    // The word "random" alone asks for a random sentence, as the button does (when Random is on).
    const typedRandom = randomButton && input.value.trim().toLowerCase() === "random";
    if ((submitter && submitter.id === "random-button") || typedRandom) {
      random();
    } else {
      translate();
    }
  });

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      translate();
    }
  });
})();
