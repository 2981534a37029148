// JSON calls to this service, shared by the translate page's scripts (translate.js, inspector.js,
// alternatives.js). A refusal becomes an Error with the server's own one-line message
// ({"error": ...}), which the pages show as it is. A call may be given an AbortSignal
// (get(url, signal), post(url, body, signal)): aborted, it rejects with an AbortError.
"use strict";

window.api = (function () {
  async function request(url, options) {
    const response = await fetch(url, options);
    let answer = null;
    try { answer = await response.json(); } catch (e) { answer = null; }
    if (!response.ok) throw new Error((answer && answer.error) || "The server answered " + response.status);
    return answer;
  }

  return {
    get: (url, signal) => request(url, { headers: { Accept: "application/json" }, signal: signal }),
    post: (url, body, signal) => request(url, {
      method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body), signal: signal,
    }),
  };
})();
