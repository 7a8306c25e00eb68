// The status page: polls /status every two seconds and fills the page:
// the figures, the operator graph (drawn as SVG here) and charts of the
// rate and the lag over the last minutes (kept by the page). Every value
// goes in through textContent or an SVG attribute, never as HTML.
"use strict";
(function () {
  var prev = null; // the previous status, for rates
  var history = []; // {t, rate, lag} per poll, the last historySeconds
  var historySeconds = 600;
  var fmt = new Intl.NumberFormat("en-US");
  var SVG = "http://www.w3.org/2000/svg";

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
  function bytes(n) {
    if (n < 1024) return n + " B";
    var u = ["KiB", "MiB", "GiB", "TiB"], i = -1;
    do { n /= 1024; i++; } while (n >= 1024 && i < u.length - 1);
    return (n < 10 ? n.toFixed(1) : Math.round(n)) + " " + u[i];
  }
  // A watermark in milliseconds since the epoch; the end of input is the
  // largest int64.
  function watermark(ms) {
    if (ms === undefined || ms === null) return "";
    if (ms >= 8.64e15) return "end of input";
    if (ms <= -8.64e15) return "";
    return new Date(ms).toISOString().replace("T", " ").replace("Z", "");
  }
  function rateText(r) { return r === null ? "–/s" : fmt.format(Math.max(0, Math.round(r))) + "/s"; }
  function el(name, attrs, text) {
    var e = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + "…" : s; }

  // vertexFigures sums each graph vertex's tasks (matched by kind and id):
  // records in and out, their rates since the previous status, state, late
  // rows and the smallest watermark.
  function vertexFigures(st, dt) {
    var before = {};
    if (prev) prev.tasks.forEach(function (x) { before[taskKey(x)] = x; });
    return st.graph.vertices.map(function (v) {
      var f = { tasks: 0, inNow: 0, outNow: 0, inPrev: 0, outPrev: 0, known: !!prev && dt > 0,
        state: 0, entries: 0, late: 0, wm: null };
      st.tasks.forEach(function (x) {
        if (x.kind !== v.kind || x.name !== v.id) return;
        f.tasks++;
        f.inNow += x.records_in; f.outNow += x.records_out;
        var b = before[taskKey(x)];
        if (b) { f.inPrev += b.records_in; f.outPrev += b.records_out; } else { f.known = false; }
        f.state += x.state_bytes || 0; f.entries += x.state_entries || 0; f.late += x.late_records || 0;
        if (x.watermark_ms !== undefined && (f.wm === null || x.watermark_ms < f.wm)) f.wm = x.watermark_ms;
      });
      f.inRate = f.known ? (f.inNow - f.inPrev) / dt : null;
      f.outRate = f.known ? (f.outNow - f.outPrev) / dt : null;
      return f;
    });
  }

  // drawGraph draws the operator graph: vertices in columns by their
  // longest path from a source, edges as curves with their exchange and
  // rate.
  function drawGraph(st, dt) {
    var svg = $("graph");
    svg.textContent = "";
    var g = st.graph;
    if (!g || g.vertices.length === 0) {
      svg.setAttribute("width", 0); svg.setAttribute("height", 0);
      $("graphnote").hidden = true;
      return;
    }
    $("graphnote").hidden = false;
    var n = g.vertices.length, col = new Array(n).fill(0);
    for (var pass = 0; pass < n; pass++) {
      g.edges.forEach(function (e) { if (col[e.to] < col[e.from] + 1) col[e.to] = col[e.from] + 1; });
    }
    var W = 250, H = 112, GX = 110, GY = 22, M = 16, rows = [], pos = [];
    col.forEach(function (c, i) { rows[c] = rows[c] || 0; pos[i] = { x: M + c * (W + GX), y: M + rows[c] * (H + GY) }; rows[c]++; });
    var width = M * 2 + (rows.length - 1) * (W + GX) + W, height = M * 2 + Math.max.apply(null, rows) * (H + GY) - GY;
    svg.setAttribute("width", width); svg.setAttribute("height", height);
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    var defs = el("defs", {}), marker = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" });
    marker.appendChild(el("path", { d: "M0,0 L10,5 L0,10 z", fill: "#8c959f" }));
    defs.appendChild(marker);
    svg.appendChild(defs);
    var figs = vertexFigures(st, dt);
    g.edges.forEach(function (e, i) {
      var a = pos[e.from], b = pos[e.to];
      // Several edges into one vertex land at different heights.
      var ins = g.edges.filter(function (x) { return x.to === e.to; }), k = ins.indexOf(e);
      var x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H * (k + 1) / (ins.length + 1), mx = (x1 + x2) / 2;
      var path = el("path", { "class": "edge" + (e.fused ? " fused" : ""), id: "edge" + i, "marker-end": "url(#arrow)",
        d: "M" + x1 + "," + y1 + " C" + mx + "," + y1 + " " + mx + "," + y2 + " " + x2 + "," + y2 });
      svg.appendChild(path);
      // Every row a vertex emits travels on each of its edges; a source's
      // dead letters are what its dead-letter sink received.
      var rate = e.exchange === "dead-letter" ? figs[e.to].inRate : figs[e.from].outRate;
      var ly = (y1 + y2) / 2;
      svg.appendChild(el("text", { "class": "elabel", x: mx, y: ly - 4, "text-anchor": "middle" }, e.exchange + (e.fused ? " · chained" : "")));
      svg.appendChild(el("text", { "class": "erate", id: "edgerate" + i, x: mx, y: ly + 11, "text-anchor": "middle" }, rateText(rate)));
    });
    g.vertices.forEach(function (v, i) {
      var p = pos[i], f = figs[i];
      var node = el("g", { "class": "node " + v.kind + (v.stateful ? " stateful" : ""), id: "vertex" + i, transform: "translate(" + p.x + "," + p.y + ")" });
      node.appendChild(el("title", {}, v.name + " (" + v.kind + " " + v.id + ")"));
      node.appendChild(el("rect", { width: W, height: H, rx: 6 }));
      var lines = [
        { cls: "title", text: clip(v.name, 30) },
        { cls: "sub", text: v.kind + (v.stateful ? " · keyed state" : "") + " · " + v.parallelism + (v.parallelism === 1 ? " task" : " tasks") },
        { cls: "rates", text: v.kind === "source" ? "read " + rateText(f.inRate) + " · out " + rateText(f.outRate) :
          v.kind === "sink" ? "in " + rateText(f.inRate) + " · delivered " + rateText(f.outRate) :
          "in " + rateText(f.inRate) + " · out " + rateText(f.outRate) }
      ];
      if (v.stateful) lines.push({ cls: "state", text: "state " + bytes(f.state) + " · " + fmt.format(f.entries) + " entries" });
      if (f.wm !== null) lines.push({ cls: "wm", text: "watermark " + watermark(f.wm) });
      if (f.late > 0) lines.push({ cls: "late", text: fmt.format(f.late) + " late rows dropped" });
      lines.slice(0, 6).forEach(function (l, j) {
        node.appendChild(el("text", { "class": l.cls, x: 10, y: 19 + j * 17 }, l.text));
      });
      svg.appendChild(node);
    });
  }

  // drawChart draws one series of the history as a line over the last
  // historySeconds, scaled to its largest value.
  function drawChart(id, maxId, key, now) {
    var svg = $(id);
    svg.textContent = "";
    var pts = history.filter(function (h) { return h[key] !== null; });
    var top = Math.max.apply(null, [1].concat(pts.map(function (h) { return h[key]; })));
    $(maxId).textContent = pts.length ? "now " + fmt.format(Math.round(pts[pts.length - 1][key])) + " · max " + fmt.format(Math.round(top)) : "no figures yet";
    [0, 45, 89].forEach(function (y) { svg.appendChild(el("line", { x1: 0, x2: 300, y1: y + 0.5, y2: y + 0.5 })); });
    if (pts.length === 0) return;
    svg.appendChild(el("polyline", { points: pts.map(function (h) {
      return (300 * (1 - (now - h.t) / historySeconds)).toFixed(1) + "," + (88 - 86 * h[key] / top).toFixed(1);
    }).join(" ") }));
  }

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
    var rate = prev && dt > 0 ? Math.max(0, (records - prevRecords) / dt) : null;
    $("rate").textContent = rate !== null ? fmt.format(Math.round(rate)) : "–";

    var lag = 0, known = 0;
    st.assignment.forEach(function (p) { if (p.lag >= 0) { lag += p.lag; known++; } });
    $("lag").textContent = known ? fmt.format(lag) : "–";
    history.push({ t: t, rate: rate, lag: known ? lag : null });
    while (history.length && history[0].t < t - historySeconds) history.shift();
    drawChart("ratechart", "ratemax", "rate", t);
    drawChart("lagchart", "lagmax", "lag", t);
    drawGraph(st, dt);
    $("lagnote").textContent = st.assignment.length ? known + " of " + st.assignment.length + " partitions known" : "no partitioned sources";

    var c = st.checkpoints;
    if (c.last_id) {
      $("ckpt").textContent = "#" + c.last_id;
      $("ckptnote").textContent = age(c.last_age_seconds) + " · took " + dur(c.last_duration_seconds) +
        (c.last_state_bytes ? " · state " + bytes(c.last_state_bytes) + " (" + bytes(c.last_state_written_bytes || 0) + " written)" : "") +
        " · " + c.completed + " done, " + c.failed + " failed";
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
        x.backpressure_seconds.toFixed(1), x.kind === "operator" && (x.state_bytes || x.state_entries) ? bytes(x.state_bytes || 0) : "",
        x.late_records ? fmt.format(x.late_records) : "", watermark(x.watermark_ms)];
    }), "no tasks running", 10);
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
