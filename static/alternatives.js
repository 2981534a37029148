// The inspector's list of other words for an English word (inspector.js makes one with
// makeAlternatives). Clicking an English word (or Enter on it) asks POST /api/complete for
// translations of its sentence that keep everything before the word and continue with other
// words; the list shows up to five, arrow keys move, Enter or a click takes one (handed to
// ctx.choose), Escape closes it and gives the focus back to the word.
//
// ctx: output (the English words' box), panel, list (the listbox), status (live region),
// unitAt(u) (a sentence: {source, translation, spans}), generation() (bumps with every new
// translation), wordAt(u, i) (the button of English word i of sentence u), choose(u, i, option).
"use strict";

window.makeAlternatives = function (ctx) {
  const { output, panel, list, status } = ctx;
  const MAX_ALTERNATIVES = 5;
  let menu = null;  // the open list: {word, unit, index, options, active}

  function collapse(text) {
    return text.replace(/\s+/g, " ").replace(/^ /, "");
  }

  // A word as the list compares it: in any letter case ("me", "Me"), without the punctuation
  // after it ("station?" and "station??" are one word), as the server does (app/inspection.py).
  function wordKey(word) {
    return (word.replace(/[^\p{L}\p{N}_\s]+$/u, "") || word).toLowerCase();
  }

  // What each completion puts at the word's position: its text after the prefix, up to the next
  // space (the label), and the rest of the sentence after it (shown as a preview); the word
  // already there, and repeats, left out. Completions are whole sentences, best first: the best
  // for each word, then more for the same words (the rest of the sentence said otherwise); the
  // server leaves out the implausible ones (app/inspection.py).
  function optionsOf(completions, prefix, current) {
    const normal = collapse(prefix);
    const seen = new Set([wordKey(current)]);
    const options = [];
    completions.forEach((c) => {
      const text = c.text || "";
      const after = text.startsWith(normal) ? text.slice(normal.length) : null;
      if (after === null && !c.word) return;
      const word = after === null ? c.word : after.match(/^\S*/)[0];
      const label = word || "(end)";
      if (!text.trim() || seen.has(wordKey(label)) || options.length >= MAX_ALTERNATIVES) return;
      seen.add(wordKey(label));
      options.push({ label: label, text: text, rest: after === null ? text : after.slice(word.length) });
    });
    return options;
  }

  async function open(button) {
    if (button.getAttribute("aria-busy") === "true") return;  // already asked
    if (menu && menu.word === button) {
      close(true);
      return;
    }
    close(false);
    const u = Number(button.dataset.unit);
    const i = Number(button.dataset.word);
    const unit = ctx.unitAt(u);
    const prefix = unit.translation.slice(0, unit.spans[i][0]);
    const current = unit.translation.slice(unit.spans[i][0]).match(/^\S*/)[0];
    const mine = ctx.generation();
    button.setAttribute("aria-busy", "true");
    status.textContent = "Looking for other words instead of “" + button.textContent + "”…";
    let answer;
    try {
      // one more than shown: the word already there is usually among them
      answer = await window.api.post("/api/complete",
        Object.assign({ q: unit.source, prefix: prefix, n: MAX_ALTERNATIVES + 1 }, unit.langs));
    } catch (e) {
      if (mine === ctx.generation()) status.textContent = "No alternatives: " + e.message;
      return;
    } finally {
      button.removeAttribute("aria-busy");
    }
    // The sentence may have been drawn again meanwhile (its explanation came): the same word.
    const word = button.isConnected ? button : ctx.wordAt(u, i);
    if (mine !== ctx.generation() || !word || word.textContent !== button.textContent) return;
    const options = optionsOf(answer.completions || [], prefix, current);
    if (!options.length) {
      status.textContent = "The model has no other word for “" + word.textContent + "” here.";
      return;
    }
    show(word, u, i, options);
  }

  function show(word, u, i, options) {
    list.replaceChildren(...options.map((o, k) => {
      const li = document.createElement("li");
      li.id = "alternative-" + k;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", k === 0 ? "true" : "false");
      const strong = document.createElement("strong");
      strong.textContent = o.label;
      const rest = document.createElement("span");
      rest.className = "rest";
      rest.textContent = o.rest;  // the rest of the sentence as it will read, a preview
      li.append(strong, rest);
      li.title = o.text;
      li.setAttribute("aria-label", o.label + ": " + o.text);
      li.addEventListener("mousedown", (event) => event.preventDefault());  // keep the focus in the list
      li.addEventListener("click", () => take(k));
      return li;
    }));
    list.setAttribute("aria-label", "Other words instead of “" + word.textContent + "”");
    list.setAttribute("aria-activedescendant", "alternative-0");
    menu = { word: word, unit: u, index: i, options: options, active: 0 };
    attach(word);
    list.hidden = false;
    place(word);
    status.textContent = options.length + " alternatives for “" + word.textContent + "”: arrow keys choose, Enter takes one, Escape closes.";
    list.focus();
  }

  function attach(word) {
    menu.word = word;
    word.setAttribute("aria-expanded", "true");
    word.setAttribute("aria-controls", "alternatives");
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

  function close(returnFocus) {
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

  function take(k) {
    if (!menu) return;
    const { unit: u, index: i, options } = menu;
    close(false);
    ctx.choose(u, i, options[k]);
  }

  // inspector.js drew a sentence again: the open list belongs to the new button of its word.
  function redrawn(u) {
    if (!menu || menu.unit !== u || menu.word.isConnected) return;
    const word = ctx.wordAt(u, menu.index);
    if (word && word.textContent === menu.word.textContent) attach(word);
    else close(false);
  }

  output.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest(".word");
    if (button) open(button);
  });
  list.addEventListener("keydown", (event) => {
    if (!menu) return;
    switch (event.key) {
      case "ArrowDown": activate(menu.active + 1); break;
      case "ArrowUp": activate(menu.active - 1); break;
      case "Home": activate(0); break;
      case "End": activate(menu.options.length - 1); break;
      case "Enter": case " ": take(menu.active); break;
      case "Escape": close(true); status.textContent = ""; break;
      case "Tab": close(false); return;  // let the focus move on
      default: return;
    }
    event.preventDefault();
  });
  list.addEventListener("focusout", (event) => {
    if (menu && !list.contains(event.relatedTarget)) close(false);
  });
  document.addEventListener("click", (event) => {
    if (menu && !list.contains(event.target) && event.target !== menu.word) close(false);
  });

  return { close: close, redrawn: redrawn };
};
