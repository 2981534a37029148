// The beam search tree as SVG: one column per step, the hypotheses of the step below each other
// (in the server's order), an edge from each to the hypothesis it extends. Pruned and ended
// hypotheses are drawn too; the winner's path is marked. Keyboard: one tab stop in the tree, the
// arrow keys move (left: parent, right: best continuation, up/down: the step's other
// hypotheses); the focused hypothesis and its path are described in a live region. The table
// under the tree (rendered by the server) is the text alternative.
"use strict";

(function () {
  const data = JSON.parse(document.getElementById("beam-data").textContent);
  const box = document.getElementById("beam-tree");
  const focusText = document.getElementById("beam-focus");
  const SVG = "http://www.w3.org/2000/svg";

  const COL = 132;    // step to step
  const ROW = 50;     // hypothesis to hypothesis
  const W = 110;      // node box
  const H = 38;
  const PAD = 8;

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    Object.entries(attrs || {}).forEach(([k, v]) => node.setAttribute(k, String(v)));
    if (parent) parent.appendChild(node);
    return node;
  }

  function text(pieces) {
    return (pieces || []).join("").replace(/▁/g, " ").trim();
  }

  function number(x) {
    return typeof x === "number" ? x.toFixed(2).replace("-", "−") : "";
  }

  // ------------------------------------------------------------------------ the nodes

  const root = { key: "root", step: 0, index: 0, id: "0.0", piece: "<s>", pieces: [], status: "start",
                 children: [], parent: null };
  const columns = [[root]];
  data.steps.forEach((step, s) => {
    const previous = columns[s];
    columns.push(step.hypotheses.map((h, i) => {
      const parent = s === 0 ? root : (previous.find((p) => p.id === h.parent) || root);
      const node = Object.assign({}, h, { key: (s + 1) + ":" + h.id, step: s + 1, index: i, children: [], parent: parent });
      parent.children.push(node);
      return node;
    }));
  });

  // The winner: the last hypothesis with its id (ended, if several), then its ancestors.
  let winner = null;
  for (let s = columns.length - 1; s > 0 && !winner; s--) {
    const same = columns[s].filter((n) => data.winner && n.id === data.winner.id);
    winner = same.find((n) => n.status === "ended") || same[0] || null;
  }
  const winning = new Set();
  for (let n = winner; n; n = n.parent) winning.add(n);

  // Children best first: the continuation with the highest log-probability.
  columns.flat().forEach((n) => n.children.sort((a, b) => (b.logprob || 0) - (a.logprob || 0)));

  // ------------------------------------------------------------------------ drawing

  const rows = Math.max(...columns.map((c) => c.length));
  const width = PAD * 2 + (columns.length - 1) * COL + W;
  const height = PAD * 2 + (rows - 1) * ROW + H;
  const svg = el("svg", {
    width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "group",
    "aria-label": "Search tree: " + data.steps.length + " steps, beam size " + data.beam_size +
      ". Arrow keys move between hypotheses.",
    "aria-describedby": "tree-help",
  });
  const edges = el("g", { class: "edges", "aria-hidden": "true" }, svg);
  const nodes = el("g", { class: "nodes" }, svg);

  const x = (n) => PAD + n.step * COL;
  const y = (n) => PAD + n.index * ROW;

  function statusWords(n) {
    if (n === root) return "start of the translation";
    return { alive: "kept in the beam", ended: "ended: a finished translation", pruned: "pruned" }[n.status] || n.status;
  }

  function describe(n) {
    if (n === root) return "Start: <s>, the decoder's first input.";
    const parts = ["Step " + n.step + ", hypothesis " + (n.index + 1) + " of " + columns[n.step].length + ": piece " +
      n.piece + ", so far “" + text(n.pieces) + "”", "log-probability " + number(n.logprob), statusWords(n)];
    if (winning.has(n)) parts.push(n === winner ? "the winner ★" : "on the winning path");
    return parts.join("; ") + ".";
  }

  columns.flat().forEach((n) => {
    if (n.parent) {
      const x0 = x(n.parent) + W;
      const y0 = y(n.parent) + H / 2;
      const x1 = x(n);
      const y1 = y(n) + H / 2;
      const mid = (x0 + x1) / 2;
      n.edge = el("path", {
        d: "M" + x0 + "," + y0 + " C" + mid + "," + y0 + " " + mid + "," + y1 + " " + x1 + "," + y1,
        class: "edge " + n.status + (winning.has(n) ? " winner" : ""),
      }, edges);
    }
    const g = el("g", {
      class: "node " + n.status + (winning.has(n) ? " winner" : ""),
      transform: "translate(" + x(n) + "," + y(n) + ")", tabindex: -1, role: "button",
      "aria-label": describe(n), "data-key": n.key,
    }, nodes);
    el("rect", { class: "ring", x: -4, y: -4, width: W + 8, height: H + 8, rx: 8 }, g);  // focus ring
    el("rect", { class: "box", width: W, height: H, rx: 5 }, g);
    const label = el("text", { x: 8, y: 16, class: "piece" }, g);
    label.textContent = (n === winner ? "★ " : "") + n.piece;  // textContent: never parsed as markup
    if (n !== root) {
      const score = el("text", { x: 8, y: 31, class: "score" }, g);
      score.textContent = number(n.logprob) + (n.status === "ended" ? " · end" : n.status === "pruned" ? " · pruned" : "");
    }
    const title = el("title", {}, g);
    title.textContent = describe(n);
    n.g = g;
    g.addEventListener("focus", () => select(n));
    g.addEventListener("mouseenter", () => select(n, true));
    g.addEventListener("click", () => { n.g.focus(); select(n); });
  });
  box.replaceChildren(svg);

  // ------------------------------------------------------------------------ selection

  let current = winner && winner.step ? columns[1].find((n) => winning.has(n)) || root : root;
  current.g.setAttribute("tabindex", "0");

  function select(n, hoverOnly) {
    const path = new Set();
    for (let p = n; p; p = p.parent) path.add(p);
    columns.flat().forEach((m) => {
      m.g.classList.toggle("path", path.has(m));
      if (m.edge) m.edge.classList.toggle("path", path.has(m));
    });
    focusText.textContent = describe(n);
    if (!hoverOnly) {
      current.g.setAttribute("tabindex", "-1");
      current = n;
      current.g.setAttribute("tabindex", "0");
    }
  }

  function move(n) {
    if (!n) return;
    n.g.focus();
    n.g.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  svg.addEventListener("keydown", (event) => {
    const n = current;
    let next = null;
    switch (event.key) {
      case "ArrowLeft": next = n.parent; break;
      case "ArrowRight": next = n.children[0]; break;
      case "ArrowUp": next = columns[n.step][n.index - 1]; break;
      case "ArrowDown": next = columns[n.step][n.index + 1]; break;
      case "Home": next = root; break;
      case "End": next = winner; break;
      default: return;
    }
    event.preventDefault();
    move(next);
  });
  // Leaving the tree with the mouse shows the focused hypothesis again, or nothing.
  svg.addEventListener("mouseleave", () => {
    if (svg.contains(document.activeElement)) {
      select(current);
      return;
    }
    columns.flat().forEach((m) => {
      m.g.classList.remove("path");
      if (m.edge) m.edge.classList.remove("path");
    });
    focusText.textContent = "";
  });
})();
