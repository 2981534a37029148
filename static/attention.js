// Attention heatmaps: every head of one layer side by side plus their mean, for one kind of
// attention. Selecting an attending piece (hover, focus or click; in the piece list or in a
// heatmap) outlines its row in every head and shades the attended pieces by the mean weight.
"use strict";

(function () {
  const data = JSON.parse(document.getElementById("attention-data").textContent);
  const kindSelect = document.getElementById("kind");
  const layerSelect = document.getElementById("layer");
  const queriesBox = document.getElementById("queries");
  const keysBox = document.getElementById("keys");
  const selectionText = document.getElementById("selection");
  const heatmaps = document.getElementById("heatmaps");

  // Which pieces label the rows (queries) and the columns (keys) of each kind.
  const AXES = {
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

  function heatmap(div, z, title, axes, showScale) {
    const rows = axes.rows.map(label);
    const cols = axes.cols.map(label);
    const text = z.map((row, i) => row.map((w, j) =>
      axes.rowName + " " + rows[i] + " → " + axes.colName + " " + cols[j] + "<br>weight " + w.toFixed(3)));
    // Indices on the axes, pieces as labels: repeated pieces ("▁die" twice) stay separate rows.
    const ticks = (labels) => ({ tickvals: labels.map((_, i) => i), ticktext: labels, tickfont: { size: 11 },
                                 automargin: true, showgrid: false, zeroline: false });
    // Cells shrink for long sentences so that several heads still fit side by side.
    const cell = Math.max(8, Math.min(18, Math.floor(480 / Math.max(cols.length, rows.length))));
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
    const kind = kindSelect.value;
    const heads = data.attention[kind][Number(layerSelect.value)];
    const axes = AXES[kind];
    matrices = heads.concat([mean(heads)]);
    pieceButtons(queriesBox, axes.rows, true);
    pieceButtons(keysBox, axes.cols, false);
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
    const axes = AXES[kindSelect.value];
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
      el.style.backgroundColor = weights ? "rgba(8, 81, 156, " + weights[j].toFixed(3) + ")" : "";
      el.style.color = weights && weights[j] > 0.5 ? "#fff" : "";
    });
    if (row === null) {
      selectionText.textContent = "";
      return;
    }
    const top = weights.map((w, j) => [w, j]).sort((a, b) => b[0] - a[0]).slice(0, 3)  // textContent: no escaping
      .map(([w, j]) => axes.cols[j] + " (" + w.toFixed(2) + ")");
    selectionText.textContent = axes.rowName + " piece " + axes.rows[row] + " attends most to " + top.join(", ") + " (mean over heads).";
  }

  kindSelect.addEventListener("change", () => { pinned = null; fillLayers(); render(); });
  layerSelect.addEventListener("change", render);
  fillLayers();
  render();
})();
