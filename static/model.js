// Training curves of the checkpoint (from its metadata), one Plotly line chart per group; the
// server sends only series of two points or more (app/modelcard.py, curve_charts).
"use strict";

(function () {
  const charts = JSON.parse(document.getElementById("curves-data").textContent);
  charts.forEach((chart) => {
    const traces = chart.series.map((s) => ({
      type: "scatter", mode: s.x.length > 30 ? "lines" : "lines+markers", name: s.name, x: s.x, y: s.y,
      connectgaps: true, hovertemplate: s.name + " %{y}<br>step %{x}<extra></extra>",
    }));
    const layout = {
      title: { text: chart.title, font: { size: 14 } },
      xaxis: { title: { text: "step" } },
      // a learning rate in scientific notation: Plotly's default SI suffixes read "220µ"
      yaxis: chart.yformat ? { tickformat: chart.yformat } : {},
      margin: { l: 55, r: 10, t: 56, b: 45 },
      height: 300,
      legend: { orientation: "h", x: 1, xanchor: "right", y: 1.02, yanchor: "bottom" },
    };
    Plotly.newPlot(chart.id, traces, layout, { displayModeBar: false, responsive: true });
  });
})();
