// The status page: polls /status every two seconds and fills the page.
// Every value goes in through textContent, never as HTML.
"use strict";
(function () {
  var prev = null; // the previous status, for rates
  var fmt = new Intl.NumberFormat("en-US");

  function $(id) { return document.getElementById(id); }
  function num(n) { return n < 0 ? "–" : fmt.format(n); }
  function age(s) {
    if (s < 1) return "just now";
    if (s < 120) return Math.round(s) + " s ago";
    if (s < 7200) return Math.round(s / 60) + " min ago";
    if (s < 172800) return Math.round(s / 3600) + " h ago";
    return Math.round(s / 86400) + " days ago";
  }
  function dur(s) {
    if (s < 1) return Math.round(s * 1000) + " ms";
    return s < 120 ? s.toFixed(1) + " s" : Math.round(s / 60) + " min";
  }
  function row(cells) {
    var tr = document.createElement("tr");
    cells.forEach(function (c) {
      var td = document.createElement("td");
      if (typeof c === "object" && c !== null) {
        td.textContent = c.text;
        if (c.cls) td.className = c.cls;
        if (c.attrs) {
          var span = document.createElement("span");
          span.className = "attrs";
          span.textContent = c.attrs;
          td.appendChild(document.createTextNode(" "));
          td.appendChild(span);
        }
      } else {
        td.textContent = c;
      }
      tr.appendChild(td);
    });
    return tr;
  }
  function fill(id, rows, empty, span) {
    var body = $(id);
    body.textContent = "";
    rows.forEach(function (r) { body.appendChild(row(r)); });
    if (rows.length === 0) {
      var tr = row([{ text: empty, cls: "muted" }]);
      tr.firstChild.colSpan = span;
      body.appendChild(tr);
    }
  }
  function taskKey(t) { return t.kind + "|" + t.name + "|" + t.index; }

  function render(st) {
    var t = Date.parse(st.time) / 1000;
    var dt = prev ? t - Date.parse(prev.time) / 1000 : 0;
    var before = {};
    if (prev) prev.tasks.forEach(function (x) { before[taskKey(x)] = x.records_in; });

    document.title = st.job + " · streamsql";
    $("job").textContent = st.job;
    var degraded = st.degraded || [];
    $("state").textContent = st.state + (degraded.length ? " · DEGRADED" : "");
    $("state").className = "state " + (degraded.length ? "FAILED" : st.state);
    $("degraded").hidden = degraded.length === 0;
    var dl = $("degradedlist");
    dl.textContent = "";
    degraded.forEach(function (d) {
      var li = document.createElement("li");
      li.textContent = "sink " + d.sink + (d.task >= 0 ? " task " + d.task : "") + " cannot deliver for " +
        dur(d.for_seconds) + ": " + d.problem;
      dl.appendChild(li);
    });
    $("run").textContent = st.run || "–";
    $("restarts").textContent = st.restarts;

    var records = 0, prevRecords = 0;
    st.tasks.forEach(function (x) {
      if (x.kind !== "source") return;
      records += x.records_in;
      prevRecords += before[taskKey(x)] || 0;
    });
    $("records").textContent = fmt.format(records);
    $("rate").textContent = prev && dt > 0 ? fmt.format(Math.max(0, Math.round((records - prevRecords) / dt))) : "–";

    var lag = 0, known = 0;
    st.assignment.forEach(function (p) { if (p.lag >= 0) { lag += p.lag; known++; } });
    $("lag").textContent = known ? fmt.format(lag) : "–";
    $("lagnote").textContent = st.assignment.length ? known + " of " + st.assignment.length + " partitions known" : "no partitioned sources";

    var c = st.checkpoints;
    if (c.last_id) {
      $("ckpt").textContent = "#" + c.last_id;
      $("ckptnote").textContent = age(c.last_age_seconds) + " · took " + dur(c.last_duration_seconds) + " · " + c.completed + " done, " + c.failed + " failed";
    } else {
      $("ckpt").textContent = "–";
      $("ckptnote").textContent = "none yet · " + c.failed + " failed";
    }
    var p = st.pending_commits;
    $("pending").textContent = p.count;
    $("pendingnote").textContent = p.count ? "oldest " + age(p.oldest_age_seconds) : "none";
    if (st.triggering_paused) $("pendingnote").textContent += " · checkpoints paused";

    var so = st.scale_out;
    $("scaleout").hidden = !so;
    if (so) {
      $("scaleout").textContent = "Scaled out: the consumer group assigned " + Object.keys(so.assignment).sort().map(function (src) {
        return src + " → " + (so.assignment[src].length ? so.assignment[src].join(", ") : "nothing");
      }).join("; ") + " · " + so.reassignments + " reassignment" + (so.reassignments === 1 ? "" : "s") + " so far";
    }
    fill("pipelines", st.pipelines.map(function (x) {
      return [x.name, x.sources.join(", "), x.sinks.join(", ")];
    }), "no tasks running", 3);
    fill("partitions", st.assignment.map(function (x) {
      return [x.source, x.task, x.topic, x.partition, num(x.position), num(x.high_watermark), num(x.last_stable_offset),
        { text: x.lag < 0 ? "unknown" : fmt.format(x.lag), cls: "n" + (x.lag > 0 ? " lagged" : "") }];
    }), "none (no Kafka source, or no partition assigned to this instance)", 8);
    fill("tasks", st.tasks.map(function (x) {
      var b = before[taskKey(x)];
      var rate = prev && dt > 0 && b !== undefined ? fmt.format(Math.max(0, Math.round((x.records_in - b) / dt))) : "–";
      return [x.kind, x.name, x.index, fmt.format(x.records_in), fmt.format(x.records_out), rate,
        x.backpressure_seconds.toFixed(1)];
    }), "no tasks running", 7);
    fill("recent", st.recent.slice().reverse().map(function (e) {
      return [{ text: e.time.replace("T", " ").replace(/(\.\d+)?Z$/, ""), cls: "nowrap" }, { text: e.level, cls: e.level }, { text: e.message, attrs: e.attrs }];
    }), "none", 3);

    // Right-align the numeric columns.
    ["partitions", "tasks"].forEach(function (id) {
      var heads = $(id).parentNode.querySelectorAll("th");
      Array.prototype.forEach.call($(id).rows, function (r) {
        Array.prototype.forEach.call(r.cells, function (td, i) {
          if (heads[i] && heads[i].className === "n" && td.colSpan === 1) td.classList.add("n");
        });
      });
    });
    prev = st;
  }

  function poll() {
    fetch("status", { cache: "no-store" }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.json();
    }).then(function (st) {
      render(st);
      $("conn").textContent = "updated " + new Date().toLocaleTimeString();
      $("conn").className = "muted";
    }).catch(function (err) {
      $("conn").textContent = "cannot reach the job: " + err.message;
      $("conn").className = "down";
    }).finally(function () { setTimeout(poll, 2000); });
  }
  poll();
})();
