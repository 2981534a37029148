// The translate page's Files tab: a file dropped on the drop zone or chosen with the file input is
// sent to POST /translate_file (LibreTranslate's multipart upload: file, source, target, the
// glossary's pairs as JSON text when glossary.js has some, and api_key where api.js has a key),
// and the answer's one-time translatedFileUrl becomes a download link named as the file will be
// saved (NAME_en.EXT).
// - The supported formats come from GET /frontend/settings (supportedFilesFormat, the server's
//   list), asked for when the tab first opens; they also fill the input's accept attribute.
// - Progress: the upload's percentage (XMLHttpRequest's upload events), then "Translating…".
// - Errors are the server's own ({"error": ...}) in the panel's error area; a file over the size
//   limit (data-max-bytes, MAX_FILE_BYTES) is refused here with the server's words, not uploaded.
// - The link works once (the server forgets the file after its download): once followed, it is
//   replaced by a note saying so.
// Without JavaScript the Files tab is not shown at all (its panel's form would answer JSON).
"use strict";

(function () {
  const form = document.getElementById("file-form");
  if (!form) return;
  const panel = document.getElementById("panel-files");
  const tablist = document.getElementById("translate-tabs");
  const zone = document.getElementById("drop-zone");
  const input = document.getElementById("file-input");
  const chosen = document.getElementById("file-chosen");
  const formats = document.getElementById("file-formats-list");
  const button = document.getElementById("file-button");
  const status = document.getElementById("file-status");
  const error = document.getElementById("file-error");
  const done = document.getElementById("file-result");
  const link = document.getElementById("file-link");
  const used = document.getElementById("file-used");
  const sourceSelect = document.getElementById("source");
  const maxBytes = Number(form.dataset.maxBytes);
  const numbers = new Intl.NumberFormat("en-US");
  let settingsAsked = false;
  let request = null;  // the upload in flight

  function size(bytes) {
    if (bytes < 1000) return numbers.format(bytes) + (bytes === 1 ? " byte" : " bytes");
    if (bytes < 1e6) return (bytes / 1e3).toFixed(1) + " kB";
    return (bytes / 1e6).toFixed(1) + " MB";
  }

  // ------------------------------------------------------------------------ formats

  async function loadFormats() {
    if (settingsAsked) return;
    settingsAsked = true;
    try {
      const settings = await window.api.get("/frontend/settings");
      const list = settings.supportedFilesFormat || [];
      formats.textContent = list.join(", ");
      input.accept = list.join(",");
    } catch (e) {
      formats.textContent = "not known (" + e.message + ")";
      settingsAsked = false;  // asked again when the tab opens again
    }
  }

  if (tablist) tablist.addEventListener("tabchange", (event) => { if (event.detail.panel === panel) loadFormats(); });
  if (!panel.hidden) loadFormats();

  // ------------------------------------------------------------------------ the file

  function file() {
    return input.files && input.files.length ? input.files[0] : null;
  }

  function showError(message) {
    error.textContent = message;
    error.hidden = false;
  }

  function reset() {
    error.hidden = true;
    error.textContent = "";
    done.hidden = true;
    used.hidden = true;
    link.removeAttribute("href");
    status.textContent = "";
  }

  function fileChosen() {
    if (request) request.abort();  // another file: the answer for the one before is not wanted
    finish();
    reset();
    const f = file();
    chosen.textContent = f ? f.name + " (" + size(f.size) + ")" : "";  // the chooser says when none is
  }

  input.addEventListener("change", fileChosen);

  // Drag and drop: the dropped file becomes the input's, so that everything else reads the input.
  let depth = 0;  // dragenter/dragleave pairs, children included
  zone.addEventListener("dragenter", (event) => {
    if (!event.dataTransfer || !Array.from(event.dataTransfer.types).includes("Files")) return;
    event.preventDefault();
    depth++;
    zone.classList.add("dragging");
  });
  zone.addEventListener("dragover", (event) => {
    if (!event.dataTransfer || !Array.from(event.dataTransfer.types).includes("Files")) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
  });
  zone.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (!depth) zone.classList.remove("dragging");
  });
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    depth = 0;
    zone.classList.remove("dragging");
    const files = event.dataTransfer && event.dataTransfer.files;
    if (!files || !files.length) return;
    if (files.length > 1) {
      showError("Drop one file at a time.");
      return;
    }
    input.files = files;
    fileChosen();
  });

  // ------------------------------------------------------------------------ translating

  // The name the file will have: what follows the first dot of the URL's last part.
  function downloadName(url) {
    const last = new URL(url, location.href).pathname.split("/").pop();
    return decodeURIComponent(last.slice(last.indexOf(".") + 1));
  }

  function send(f) {
    const body = window.api.withKey(new FormData());
    body.append("file", f, f.name);
    body.append("source", sourceSelect ? sourceSelect.value : "auto");
    const targetChoice = document.getElementById("target");  // a hidden input where one direction is served
    body.append("target", targetChoice ? targetChoice.value : "en");
    const formality = document.getElementById("formality");
    if (formality && targetChoice && targetChoice.value === "de") body.append("formality", formality.value);
    const glossary = window.glossary && window.glossary.entries();
    if (glossary) body.append("glossary", JSON.stringify(glossary));

    const xhr = new XMLHttpRequest();
    request = xhr;
    xhr.open("POST", "/translate_file");
    xhr.responseType = "json";
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.addEventListener("progress", (event) => {
      if (xhr !== request || !event.lengthComputable) return;
      status.textContent = "Uploading " + f.name + ": " + Math.round(100 * event.loaded / event.total) + "%";
    });
    xhr.upload.addEventListener("load", () => {
      if (xhr === request) status.textContent = "Translating " + f.name + "…";
    });
    xhr.addEventListener("load", () => {
      if (xhr !== request) return;
      finish();
      const answer = xhr.response;
      if (xhr.status >= 200 && xhr.status < 300 && answer && answer.translatedFileUrl) {
        const name = downloadName(answer.translatedFileUrl);
        link.href = answer.translatedFileUrl;
        link.download = name;
        link.textContent = name;
        done.hidden = false;
        status.textContent = "Translated: " + name + " is ready to download.";
      } else {
        status.textContent = "";
        showError(window.api.refusal(xhr.status, answer, xhr.getResponseHeader(window.api.KEY_REFUSED)));
      }
    });
    for (const what of ["error", "timeout"]) {
      xhr.addEventListener(what, () => {
        if (xhr !== request) return;
        finish();
        status.textContent = "";
        showError("The file could not be sent: the server did not answer.");
      });
    }
    xhr.send(body);
  }

  function finish() {
    request = null;
    button.disabled = false;
    form.removeAttribute("aria-busy");
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (request) return;  // one at a time
    reset();
    const f = file();
    if (!f) {
      showError("Choose a file first.");
      input.focus();
      return;
    }
    if (f.size > maxBytes) {  // as the server says it, without sending the file
      showError("Invalid request: the file is over the limit of " + maxBytes + " bytes");
      return;
    }
    button.disabled = true;
    form.setAttribute("aria-busy", "true");
    status.textContent = "Uploading " + f.name + "…";
    send(f);
  });

  // One download: once the link is followed the server forgets the file, so the link goes.
  link.addEventListener("click", () => {
    setTimeout(() => {
      link.removeAttribute("href");
      done.hidden = true;
      used.hidden = false;
      status.textContent = "";
      button.focus();
    }, 0);
  });

  fileChosen();
})();
