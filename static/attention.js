// Attention heatmaps: every head of one layer side by side plus their mean, for one kind of
// attention. Selecting an attending piece (hover, focus or click; in the piece list or in a
// heatmap) outlines its row in every head and shades the attended pieces by the mean weight.
// Below, the model view: every layer x head of the same kind as small multiples (drawn on
// <canvas>, not Plotly, so that dozens of them stay cheap); one of them can be enlarged.
// "words" joins the pieces of each word: columns summed, rows averaged (rows still sum to 1).
"use strict";

(function () {
  const data = JSON.parse(document.getElementById("attention-data").textContent);
  const kindSelect = document.getElementById("kind");
  const layerSelect = document.getElementById("layer");
  const queriesBox = document.getElementById("queries");
  const keysBox = document.getElementById("keys");
  const selectionText = document.getElementById("selection");
  const heatmaps = document.getElementById("heatmaps");
  const unitInputs = Array.from(document.querySelectorAll('input[name="units"]'));
  const modelView = document.getElementById("model-view");
  const enlarged = document.getElementById("enlarged");
  const enlargedTitle = document.getElementById("enlarged-title");
  const enlargedPlot = document.getElementById("enlarged-plot");
  const enlargedClose = document.getElementById("enlarged-close");

  // Which pieces label the rows (queries) and the columns (keys) of each kind.
  const PIECES = {
    encoder: { rows: data.source_tokens, cols: data.source_tokens, rowName: "source", colName: "source" },
    decoder: { rows: data.target_tokens, cols: data.decoder_input_tokens, rowName: "output", colName: "decoder input" },
    cross: { rows: data.target_tokens, cols: data.source_tokens, rowName: "output", colName: "source" },
  };
  // White for 0; most of the colour range spent on small weights, where heads differ.
  const COLORS = [[0, "#ffffff"], [0.05, "#deebf7"], [0.2, "#9ecae1"], [0.45, "#4292c6"], [0.75, "#08519c"], [1, "#08306b"]];
  const HIGHLIGHT = "#c2255c";

  let pinned = null;   // row index fixed by a click, or null
  let shown;           // row index highlighted now (undefined: nothing drawn yet)
  let plots = [];      // heatmap <div>s of the current view
  let matrices = [];   // their weights, heads first, mean last
  let openThumb = null;  // the model-view button whose head is enlarged
  const cache = {};    // kind + units -> the view (labels and [layer][head] matrices)

  // ------------------------------------------------------------------------------ words

  // As model/alignment.py's word_spans: a word starts at a piece beginning with ▁, at a piece of
  // punctuation or symbols only, after such a piece, and at a placeholder; special tokens (<s>,
  // </s>) stand alone; a lone ▁ (SentencePiece puts one before a placeholder or an unknown
  // character) joins the piece after it.
  const SPECIAL = /^<\/?[a-z]+>$/;
  const PLACEHOLDER = /^⦅[^⦆]*⦆$/;
  const PUNCTUATION = /^[\p{P}\p{S}]+$/u;

  function groupWords(pieces) {
    const labels = [];
    const index = [];
    let joinable = false;  // may the next piece continue the last word?
    let glue = false;      // the last piece was a lone ▁: the next one joins it whatever it is
    pieces.forEach((piece) => {
      const bare = piece.replace(/^▁+/, "");
      if (!bare) {
        labels.push("");
        glue = true;
        joinable = false;
      } else {
        const alone = SPECIAL.test(piece) || PLACEHOLDER.test(bare) || PUNCTUATION.test(bare);
        if (glue || (joinable && !alone && !piece.startsWith("▁"))) {
          labels[labels.length - 1] += bare;
        } else {
          labels.push(bare);
        }
        glue = false;
        joinable = !alone;
      }
      index.push(labels.length - 1);
    });
    return { labels: labels.map((l) => l || "▁"), index: index };
  }

  // Rows: mean over the pieces of an attending word; columns: sum over the pieces of an attended word.
  function aggregate(matrix, rows, cols) {
    const out = rows.labels.map(() => cols.labels.map(() => 0));
    const count = rows.labels.map(() => 0);
    rows.index.forEach((r) => { count[r] += 1; });
    matrix.forEach((row, i) => {
      const target = out[rows.index[i]];
      row.forEach((w, j) => { target[cols.index[j]] += w / count[rows.index[i]]; });
    });
    return out;
  }

  function units() {
    const checked = unitInputs.find((input) => input.checked);
    return checked ? checked.value : "pieces";
  }

  // The current kind in the current units: labels and every layer's heads.
  function view() {
    const kind = kindSelect.value;
    const key = kind + ":" + units();
    if (!cache[key]) {
      const axes = PIECES[kind];
      if (units() === "words") {
        const rows = groupWords(axes.rows);
        const cols = groupWords(axes.cols);
        cache[key] = {
          rows: rows.labels, cols: cols.labels, unit: "word",
          rowName: axes.rowName, colName: axes.colName,
          layers: data.attention[kind].map((heads) => heads.map((m) => aggregate(m, rows, cols))),
        };
      } else {
        cache[key] = Object.assign({ unit: "piece", layers: data.attention[kind] }, axes);
      }
    }
    return cache[key];
  }

  // ------------------------------------------------------------------------ heatmaps

  function mean(heads) {
    return heads[0].map((row, i) => row.map((_, j) => heads.reduce((s, h) => s + h[i][j], 0) / heads.length));
  }

  function fillLayers() {
    const count = data.attention[kindSelect.value].length;
    const previous = Math.min(Number(layerSelect.value) || 0, count - 1);
    layerSelect.replaceChildren(...Array.from({ length: count }, (_, i) => {
      const option = document.createElement("option");
      option.value = String(i);
      option.textContent = "Layer " + (i + 1) + " of " + count;
      return option;
    }));
    layerSelect.value = String(previous);
  }

  function pieceButtons(box, pieces, interactive) {
    box.replaceChildren(...pieces.map((piece, i) => {
      const el = document.createElement(interactive ? "button" : "span");
      el.textContent = piece;
      el.className = "token";
      if (interactive) {
        el.type = "button";
        el.setAttribute("aria-pressed", "false");
        el.addEventListener("mouseenter", () => highlight(i));
        el.addEventListener("focus", () => highlight(i));
        el.addEventListener("mouseleave", () => highlight(pinned));
        el.addEventListener("blur", () => highlight(pinned));
        el.addEventListener("click", () => { pinned = pinned === i ? null : i; highlight(pinned); });
      }
      return el;
    }));
  }

  // Plotly reads labels as a little HTML: "</s>" would vanish, "<s>" would strike through.
  function label(piece) {
    return piece.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function heatmap(div, z, title, axes, showScale, maxCell) {
    const rows = axes.rows.map(label);
    const cols = axes.cols.map(label);
    const text = z.map((row, i) => row.map((w, j) =>
      axes.rowName + " " + rows[i] + " → " + axes.colName + " " + cols[j] + "<br>weight " + w.toFixed(3)));
    // Indices on the axes, pieces as labels: repeated pieces ("▁die" twice) stay separate rows.
    const ticks = (labels) => ({ tickvals: labels.map((_, i) => i), ticktext: labels, tickfont: { size: 11 },
                                 automargin: true, showgrid: false, zeroline: false });
    // Cells shrink for long sentences so that several heads still fit side by side.
    const big = maxCell || 18;
    const cell = Math.max(8, Math.min(big, Math.floor((maxCell ? 800 : 480) / Math.max(cols.length, rows.length))));
    const trace = {
      type: "heatmap", z: z, text: text, hovertemplate: "%{text}<extra></extra>",
      zmin: 0, zmax: 1, colorscale: COLORS, showscale: showScale, xgap: 1, ygap: 1,
      colorbar: { thickness: 10, len: 0.9, outlinewidth: 0 },
    };
    const layout = {
      title: { text: title, font: { size: 14 } },
      xaxis: Object.assign(ticks(cols), { tickangle: -60, title: { text: axes.colName, standoff: 4 } }),
      yaxis: Object.assign(ticks(rows), { autorange: "reversed", title: { text: axes.rowName, standoff: 4 } }),
      margin: { l: 10, r: 10, t: 34, b: 10 },
      width: 150 + cell * cols.length + (showScale ? 60 : 0),
      height: 150 + cell * rows.length,
    };
    return Plotly.newPlot(div, [trace], layout, { displayModeBar: false, responsive: false });
  }

  function render() {
    const axes = view();
    const heads = axes.layers[Number(layerSelect.value)];
    matrices = heads.concat([mean(heads)]);
    pieceButtons(queriesBox, axes.rows, true);
    pieceButtons(keysBox, axes.cols, false);
    queriesBox.setAttribute("aria-label", "Attending " + axes.unit + "s");
    keysBox.setAttribute("aria-label", "Attended " + axes.unit + "s, shaded by the mean weight over heads");
    plots.forEach((div) => Plotly.purge(div));
    heatmaps.replaceChildren();
    plots = matrices.map((z, h) => {
      const figure = document.createElement("figure");
      const div = document.createElement("div");
      const last = h === heads.length;
      div.className = "heatmap";
      div.setAttribute("role", "img");
      div.setAttribute("aria-label", (last ? "Mean of all heads" : "Head " + (h + 1)) + ", " + kindSelect.selectedOptions[0].textContent);
      figure.appendChild(div);
      heatmaps.appendChild(figure);
      heatmap(div, z, last ? "Mean of " + heads.length + " heads" : "Head " + (h + 1), axes, last).then(() => {
        div.on("plotly_hover", (event) => highlight(event.points[0].y));
        div.on("plotly_unhover", () => highlight(pinned));
        div.on("plotly_click", (event) => { pinned = event.points[0].y; highlight(pinned); });
      });
      return div;
    });
    if (pinned !== null && pinned >= axes.rows.length) pinned = null;
    shown = undefined;
    highlight(pinned);
  }

  function highlight(row) {
    const axes = view();
    if (row !== shown) {  // hover events repeat while the pointer moves along a row: redraw once
      shown = row;
      const shapes = row === null ? [] : [{
        type: "rect", xref: "paper", x0: 0, x1: 1, yref: "y", y0: row - 0.5, y1: row + 0.5,
        line: { color: HIGHLIGHT, width: 2 }, fillcolor: "rgba(0,0,0,0)",
      }];
      plots.forEach((div) => { if (div.layout) Plotly.relayout(div, { shapes: shapes }); });
    }
    queriesBox.querySelectorAll(".token").forEach((el, i) => {
      el.classList.toggle("active", i === row);
      el.setAttribute("aria-pressed", i === pinned ? "true" : "false");
    });
    const weights = row === null ? null : matrices[matrices.length - 1][row];
    keysBox.querySelectorAll(".token").forEach((el, j) => {
      el.style.backgroundColor = weights ? "rgba(8, 81, 156, " + Math.min(1, weights[j]).toFixed(3) + ")" : "";
      el.style.color = weights && weights[j] > 0.5 ? "#fff" : "";
    });
    if (row === null) {
      selectionText.textContent = "";
      return;
    }
    const top = weights.map((w, j) => [w, j]).sort((a, b) => b[0] - a[0]).slice(0, 3)  // textContent: no escaping
      .map(([w, j]) => axes.cols[j] + " (" + w.toFixed(2) + ")");
    selectionText.textContent = axes.rowName + " " + axes.unit + " " + axes.rows[row] + " attends most to " +
      top.join(", ") + " (mean over heads).";
  }

  // ---------------------------------------------------------------------- model view

  const STOPS = COLORS.map(([at, hex]) => [at, [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16))]);

  function color(w) {
    const x = Math.max(0, Math.min(1, w));
    for (let k = 1; k < STOPS.length; k++) {
      const [a, ca] = STOPS[k - 1];
      const [b, cb] = STOPS[k];
      if (x <= b) {
        const t = (x - a) / (b - a);
        return "rgb(" + ca.map((c, i) => Math.round(c + (cb[i] - c) * t)).join(",") + ")";
      }
    }
    return "rgb(" + STOPS[STOPS.length - 1][1].join(",") + ")";
  }

  // One small map: a cell of a few device pixels per weight, scaled up by CSS without smoothing.
  function thumbnail(matrix) {
    const canvas = document.createElement("canvas");
    const rows = matrix.length;
    const cols = rows ? matrix[0].length : 0;
    const cell = Math.max(2, Math.floor(120 / Math.max(rows, cols, 1)));
    canvas.width = Math.max(1, cols * cell);
    canvas.height = Math.max(1, rows * cell);
    canvas.setAttribute("aria-hidden", "true");
    const ctx = canvas.getContext("2d");
    matrix.forEach((row, i) => row.forEach((w, j) => {
      ctx.fillStyle = color(w);
      ctx.fillRect(j * cell, i * cell, cell, cell);
    }));
    return canvas;
  }

  function renderModelView() {
    closeEnlarged(false);
    const axes = view();
    const kindLabel = kindSelect.selectedOptions[0].textContent;
    const headCount = axes.layers[0].length;
    document.getElementById("model-view-caption").textContent =
      kindLabel + ": " + axes.layers.length + " layers × " + headCount + " heads, by " + axes.unit;
    const headRow = document.createElement("tr");
    const corner = document.createElement("td");
    headRow.appendChild(corner);
    for (let h = 0; h < headCount; h++) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = "Head " + (h + 1);
      headRow.appendChild(th);
    }
    modelView.tHead.replaceChildren(headRow);
    const body = modelView.tBodies[0];
    body.replaceChildren(...axes.layers.map((heads, l) => {
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = "Layer " + (l + 1);
      tr.appendChild(th);
      heads.forEach((matrix, h) => {
        const td = document.createElement("td");
        const button = document.createElement("button");
        button.type = "button";
        button.className = "thumb";
        button.tabIndex = l === 0 && h === 0 ? 0 : -1;  // one tab stop; arrow keys move inside
        button.dataset.layer = String(l);
        button.dataset.head = String(h);
        button.setAttribute("aria-label", "Layer " + (l + 1) + ", head " + (h + 1) + ": enlarge");
        button.setAttribute("aria-expanded", "false");
        button.setAttribute("aria-controls", "enlarged");
        button.title = "Layer " + (l + 1) + ", head " + (h + 1);
        button.appendChild(thumbnail(matrix));
        button.addEventListener("click", () => enlarge(button));
        td.appendChild(button);
        tr.appendChild(td);
      });
      return tr;
    }));
  }

  function thumbs() {
    return Array.from(modelView.querySelectorAll("button.thumb"));
  }

  modelView.addEventListener("keydown", (event) => {
    const current = event.target.closest("button.thumb");
    if (!current) return;
    const layers = view().layers;
    let l = Number(current.dataset.layer);
    let h = Number(current.dataset.head);
    const heads = layers[0].length;
    switch (event.key) {
      case "ArrowRight": h = Math.min(heads - 1, h + 1); break;
      case "ArrowLeft": h = Math.max(0, h - 1); break;
      case "ArrowDown": l = Math.min(layers.length - 1, l + 1); break;
      case "ArrowUp": l = Math.max(0, l - 1); break;
      case "Home": h = 0; if (event.ctrlKey) l = 0; break;
      case "End": h = heads - 1; if (event.ctrlKey) l = layers.length - 1; break;
      default: return;
    }
    event.preventDefault();
    const next = modelView.querySelector('button.thumb[data-layer="' + l + '"][data-head="' + h + '"]');
    thumbs().forEach((b) => { b.tabIndex = b === next ? 0 : -1; });
    next.focus();
  });

  function enlarge(button) {
    const axes = view();
    const l = Number(button.dataset.layer);
    const h = Number(button.dataset.head);
    closeEnlarged(false);
    openThumb = button;
    thumbs().forEach((b) => { b.tabIndex = b === button ? 0 : -1; });
    button.setAttribute("aria-expanded", "true");
    const title = "Layer " + (l + 1) + ", head " + (h + 1);
    enlargedTitle.textContent = title + " · " + kindSelect.selectedOptions[0].textContent + " · " + axes.unit + "s";
    enlarged.hidden = false;
    const div = document.createElement("div");
    div.className = "heatmap";
    div.setAttribute("role", "img");
    div.setAttribute("aria-label", title + ", enlarged");
    enlargedPlot.replaceChildren(div);
    heatmap(div, axes.layers[l][h], title, axes, true, 40);
    enlargedTitle.focus();
  }

  function closeEnlarged(returnFocus) {
    enlargedPlot.querySelectorAll(".js-plotly-plot").forEach((div) => Plotly.purge(div));
    enlargedPlot.replaceChildren();
    enlarged.hidden = true;
    if (openThumb) {
      openThumb.setAttribute("aria-expanded", "false");
      if (returnFocus && openThumb.isConnected) openThumb.focus();
    }
    openThumb = null;
  }

  enlargedClose.addEventListener("click", () => closeEnlarged(true));
  enlarged.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      closeEnlarged(true);
    }
  });

  // ------------------------------------------------------------------------- controls

  kindSelect.addEventListener("change", () => { pinned = null; fillLayers(); render(); renderModelView(); });
  layerSelect.addEventListener("change", render);
  unitInputs.forEach((input) => input.addEventListener("change", () => {
    pinned = null;
    document.getElementById("units-help").hidden = units() !== "words";
    render();
    renderModelView();
  }));
  fillLayers();
  render();
  renderModelView();
})();
