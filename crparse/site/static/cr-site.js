/* crparse: the version switcher and the history links of a release's pages.
   versions.js (the site's releases) and lineage.js (this release: HTML id -> [lineage id,
   page, history page]) are loaded before this file. Switching releases goes to the other release's
   locate.html with the lineage of the rule in view, which finds that rule there, renumbered or
   not. */
(function () {
  "use strict";
  function current() {
    var table = window.CR_LINEAGE || {};
    var hash = decodeURIComponent(location.hash.replace(/^#/, ""));
    if (hash && table[hash]) return hash;
    var section = document.querySelector("div.body section[id]");
    return section && table[section.id] ? section.id : null;
  }
  function switcher() {
    var versions = window.CR_VERSIONS || [];
    if (versions.length < 2) return;
    var select = document.createElement("select");
    select.id = "cr-versions";
    select.setAttribute("aria-label", "Release");
    versions.forEach(function (v) {
      var option = document.createElement("option");
      option.value = v[0];
      option.textContent = v[1];
      if (v[0] === window.CR_RELEASE) option.selected = true;
      select.appendChild(option);
    });
    select.addEventListener("change", function () {
      var number = current();
      var entry = number ? window.CR_LINEAGE[number] : null;
      var query = new URLSearchParams({ lineage: entry && entry[0] ? entry[0] : "", number: number || "" });
      location.href = "../" + encodeURIComponent(select.value) + "/locate.html?" + query.toString();
    });
    var label = document.createElement("label");
    label.className = "cr-versions";
    label.appendChild(document.createTextNode("Release: "));
    label.appendChild(select);
    var body = document.querySelector("div.body") || document.body;
    body.insertBefore(label, body.firstChild);
  }
  function historyLinks() {
    var table = window.CR_LINEAGE || {};
    document.querySelectorAll("div.cr-rule[id], div.cr-subrule[id], div.cr-term[id], section[id]").forEach(function (box) {
      var entry = table[box.id];
      if (!entry || !entry[0] || !entry[2]) return;
      var target = box.tagName === "SECTION" ? box.querySelector("h1, h2") : box.querySelector("p");
      if (!target) return;
      var link = document.createElement("a");
      link.className = "cr-history";
      link.href = "../history/" + entry[2] + ".html#" + encodeURIComponent(entry[0]);
      link.textContent = "history";
      target.appendChild(document.createTextNode(" "));
      target.appendChild(link);
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    switcher();
    historyLinks();
  });
})();
