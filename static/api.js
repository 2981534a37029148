// JSON calls to this service, shared by the translate page's scripts (translate.js, inspector.js,
// alternatives.js, glossary.js, files.js, dictionary.js). A refusal becomes an Error with the
// server's own one-line message ({"error": ...}), which the pages show as it is. A call may be
// given an AbortSignal (get(url, signal), post(url, body, signal)): aborted, it rejects with an
// AbortError.
//
// The API key: where the server requires keys, the page has an "API key" field (#api-key, shown
// here). Its value is kept in this browser (localStorage) and sent as api_key with every call: in
// the JSON body of a post, in the query string of a get, and in files.js's form (withKey). A
// refusal for the key (the server marks it with the API-Key-Refused header) also puts the server's
// message next to the field; a changed key fires "apikeychange" on document (translate.js then
// translates the text again).
//
// NAMES: the languages' names as the pages write them (app/validation.py's LANGUAGES).
"use strict";

window.api = (function () {
  const STORE = "translate:api-key";
  const KEY_REFUSED = "API-Key-Refused";  // app/errors.py
  const field = document.getElementById("api-key");
  const message = document.getElementById("api-key-message");

  function key() {
    return field ? field.value.trim() : "";
  }

  // A plain object (a copy is returned) or FormData (added to) with api_key, when there is a key.
  function withKey(params) {
    if (!key()) return params;
    if (params instanceof FormData) {
      params.append("api_key", key());
      return params;
    }
    return Object.assign({}, params, { api_key: key() });
  }

  // The server's message for a refused call; a refusal for the key is shown by the key field too.
  function refusal(status, answer, keyRefused) {
    const text = (answer && answer.error) || "The server answered " + status;
    if (keyRefused && field) {
      message.textContent = text;
      field.setAttribute("aria-invalid", "true");
    }
    return text;
  }

  async function request(url, options) {
    const response = await fetch(url, options);
    let answer = null;
    try { answer = await response.json(); } catch (e) { answer = null; }
    if (!response.ok) throw new Error(refusal(response.status, answer, response.headers.has(KEY_REFUSED)));
    return answer;
  }

  function keyed(url) {
    if (!key()) return url;
    const address = new URL(url, location.href);
    address.searchParams.set("api_key", key());
    return address.pathname + address.search;
  }

  if (field) {
    try { field.value = localStorage.getItem(STORE) || ""; } catch (e) { /* storage off: typed each visit */ }
    field.addEventListener("input", () => {
      try { localStorage.setItem(STORE, key()); } catch (e) { /* storage off: kept while the page is open */ }
      message.textContent = "";
      field.removeAttribute("aria-invalid");
      document.dispatchEvent(new CustomEvent("apikeychange"));
    });
    document.getElementById("api-key-box").hidden = false;
  }

  return {
    get: (url, signal) => request(keyed(url), { headers: { Accept: "application/json" }, signal: signal }),
    post: (url, body, signal) => request(url, {
      method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(withKey(body)), signal: signal,
    }),
    withKey: withKey,
    refusal: refusal,
    KEY_REFUSED: KEY_REFUSED,
    NAMES: { de: "German", en: "English" },
  };
})();
