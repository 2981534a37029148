// Tabs as WAI-ARIA's tabs pattern (https://www.w3.org/WAI/ARIA/apg/patterns/tabs/): for every
// [role=tablist] on the page, the selected tab is the one tab stop; Left/Right arrows (wrapping),
// Home and End move to another tab and select it (its panel is cheap to show); a click selects too.
// Without JavaScript the tab list stays hidden and only the first panel shows (templates/index.html
// says so in a <noscript>). Selecting a tab fires "tabchange" on the tab list, detail: {tab, panel}.
"use strict";

(function () {
  for (const tablist of document.querySelectorAll("[role=tablist]")) {
    const tabs = Array.from(tablist.querySelectorAll("[role=tab]"));
    const panelOf = (tab) => document.getElementById(tab.getAttribute("aria-controls"));

    function select(tab, focus) {
      for (const other of tabs) {
        const selected = other === tab;
        other.setAttribute("aria-selected", String(selected));
        other.tabIndex = selected ? 0 : -1;
        panelOf(other).hidden = !selected;
      }
      if (focus) tab.focus();
      tablist.dispatchEvent(new CustomEvent("tabchange", { detail: { tab: tab, panel: panelOf(tab) } }));
    }

    tablist.addEventListener("click", (event) => {
      const tab = event.target.closest("[role=tab]");
      if (tab && tabs.includes(tab)) select(tab, true);
    });

    tablist.addEventListener("keydown", (event) => {
      const at = tabs.indexOf(document.activeElement);
      if (at < 0 || event.altKey || event.ctrlKey || event.metaKey) return;
      const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      select(tabs[(to + tabs.length) % tabs.length], true);
    });

    select(tabs.find((t) => t.getAttribute("aria-selected") === "true") || tabs[0], false);
    tablist.hidden = false;
  }
})();
