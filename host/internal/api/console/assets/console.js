// memhost console: the little script the pages use. Every page works without it; it adds
// the live feed (EventSource, reconnecting), select-all for bulk actions and confirmations.
// It computes nothing: every number on a page came from the host.
(function () {
  "use strict";

  // Confirmations: a button with data-confirm asks before its form is sent.
  document.addEventListener("submit", function (ev) {
    var b = ev.submitter;
    var msg = b && b.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) {
      ev.preventDefault();
    }
  });

  // Bulk selection: a select-all box in the head of a bulk form's table.
  document.querySelectorAll("form[data-bulk] table").forEach(function (table) {
    var boxes = table.querySelectorAll("tbody input[type=checkbox][name=id]:not([disabled])");
    var head = table.querySelector("thead th");
    if (!boxes.length || !head) {
      return;
    }
    var all = document.createElement("input");
    all.type = "checkbox";
    all.setAttribute("aria-label", "Select every memory listed");
    all.addEventListener("change", function () {
      boxes.forEach(function (b) { b.checked = all.checked; });
    });
    head.textContent = "";
    head.appendChild(all);
  });

  // The live feed.
  var list = document.querySelector("[data-feed]");
  if (!list || !window.EventSource) {
    return;
  }
  var status = document.querySelector("[data-feed-status]");
  var setStatus = function (s) { if (status) { status.textContent = s; } };
  var max = 200;
  var add = function (e) {
    var li = document.createElement("li");
    var ev = document.createElement("span");
    ev.className = "ev";
    ev.textContent = e.event;
    li.appendChild(ev);
    li.appendChild(document.createTextNode(" "));
    var a = document.createElement("a");
    a.href = e.url;
    var code = document.createElement("code");
    code.textContent = e.short;
    a.appendChild(code);
    li.appendChild(a);
    li.appendChild(document.createTextNode(" " + e.text));
    var meta = document.createElement("div");
    meta.className = "prov";
    meta.textContent = [e.project || "global", e.kind, e.actor].filter(Boolean).join(" · ");
    li.appendChild(meta);
    li.setAttribute("data-id", e.id);
    list.insertBefore(li, list.firstChild);
    while (list.children.length > max) {
      list.removeChild(list.lastChild);
    }
  };
  var source;
  var connect = function () {
    source = new EventSource(list.getAttribute("data-feed"));
    source.onopen = function () { setStatus("Live: new writes appear here as they happen."); };
    source.addEventListener("change", function (m) { add(JSON.parse(m.data)); });
    // Fell behind, or the session ended: reconnect (a sign-out shows as an error).
    source.addEventListener("behind", function () { source.close(); setTimeout(connect, 500); });
    source.addEventListener("ended", function () { source.close(); setStatus("Your session has ended: sign in again with memhost console."); });
    // EventSource reconnects by itself (retry: 2s); say so while it does.
    source.onerror = function () {
      if (source.readyState === EventSource.CLOSED) {
        setStatus("Disconnected; retrying in 5 s…");
        setTimeout(connect, 5000);
      } else {
        setStatus("Reconnecting…");
      }
    };
  };
  connect();
})();
