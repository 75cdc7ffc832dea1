// isrcheck trace report: draws one trace state at a time from the JSON data in #isrcheck-data.
// Generic: it knows lanes of cells, marks, tags and facts (the picture a model may draw of itself)
// and a table of named fields; nothing here knows Kafka. Text goes in through textContent only.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("isrcheck-data").textContent);
  const SVG = "http://www.w3.org/2000/svg";
  const PALETTE = ["#cfe3ff", "#ffd8ad", "#cdeec8", "#efcdf2", "#fff0a0", "#c4eeee", "#e8d6c4", "#d9d9f7"];
  const CW = 46, CH = 34, TOP = 16, PAD = 6, MARK_LINE = 13;
  let traceIndex = 0, step = 0;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function fill(c) { return c === undefined || c === null ? "#ffffff" : PALETTE[((c % PALETTE.length) + PALETTE.length) % PALETTE.length]; }

  // -- header: model, options, property, verdict, counts, distinct states per BFS level ----------------------
  function drawHeader() {
    const h = DATA.header, top = document.getElementById("top");
    const titles = el("div", { class: "titles" });
    titles.append(el("h1", {}, DATA.title));
    if (h.scenario && h.scenario.story) titles.append(el("p", { class: "story" }, h.scenario.story));
    if (h.command) titles.append(el("div", { class: "command mono" }, "$ " + h.command));
    top.append(titles);
    const dl = el("dl");
    const row = (k, v) => { dl.append(el("dt", {}, k)); const dd = el("dd"); dd.append(v); dl.append(dd); };
    row("model", el("code", {}, h.model));
    const opts = el("span", { class: "options" });
    for (const o of h.options) { opts.append(el("code", {}, o), document.createTextNode(" ")); }
    for (const o of h.defaults || []) {  // the rest of the configuration, muted: each at its default
      opts.append(el("code", { class: "default", title: "the default" }, o), document.createTextNode(" "));
    }
    if (opts.childNodes.length) row("options", opts);
    if (h.properties && h.properties.length) row("properties", document.createTextNode(h.properties.join(", ")));
    row("verdict", el("span", { class: "verdict " + h.tone, id: "verdict" }, h.verdict));
    for (const [k, v] of h.counts || []) row(k, document.createTextNode(v));
    top.append(dl);
    if (h.levels && h.levels.length) top.append(chart(h.levels));
  }

  function chart(levels) {
    const w = Math.max(120, Math.min(300, levels.length * 12)), hgt = 54, max = Math.max(...levels);
    const bw = w / levels.length;
    const fig = el("figure", { class: "chart", id: "chart" });
    const s = svg("svg", { width: w, height: hgt + 14, role: "img", "aria-label": "distinct states per BFS level" });
    levels.forEach((n, i) => {
      const bh = Math.max(1, Math.round((n / max) * hgt));
      const r = svg("rect", { x: (i * bw + 0.5).toFixed(1), y: hgt - bh, width: Math.max(1, bw - 1).toFixed(1), height: bh,
                              class: i === levels.length - 1 ? "last" : "" });
      r.append(svg("title", {}, "depth " + (i + 1) + ": " + n.toLocaleString("en") + " new distinct states"));
      s.append(r);
    });
    s.append(svg("text", { x: 0, y: hgt + 12 }, "1"));
    s.append(svg("text", { x: w, y: hgt + 12, "text-anchor": "end" }, String(levels.length)));
    s.append(svg("text", { x: 2, y: 9 }, "max " + max.toLocaleString("en")));
    fig.append(s);
    fig.append(el("figcaption", {}, "distinct states per BFS level (depth 1\u2013" + levels.length + ")"));
    return fig;
  }

  // -- one trace: tabs, timeline, controls ---------------------------------------------------------------------
  function drawTabs() {
    const nav = document.getElementById("tabs");
    nav.textContent = "";
    if (DATA.traces.length < 2) return;
    DATA.traces.forEach((t, i) => {
      const b = el("button", { type: "button", role: "tab", "aria-selected": String(i === traceIndex) }, t.name);
      b.addEventListener("click", () => { traceIndex = i; drawTabs(); showTrace(); });
      nav.append(b);
    });
  }

  function trace() { return DATA.traces[traceIndex]; }

  function showTrace() {
    const t = trace();
    document.getElementById("trace-title").textContent = t.title;
    const ol = document.getElementById("timeline");
    ol.textContent = "";
    t.steps.forEach((s, i) => {
      const li = el("li", { "data-index": i, title: s.action });
      li.append(el("span", { class: "n" }, String(i + 1)));
      const act = el("span", { class: "act" });
      const cut = s.action.indexOf("(");  // an action's name, then its arguments, muted
      if (cut > 0) act.append(el("b", {}, s.action.slice(0, cut)), el("span", { class: "args" }, s.action.slice(cut)));
      else act.textContent = s.action;
      li.append(act);
      if (t.fail === i) li.classList.add("fails");
      if (t.loop !== null && t.loop !== undefined && i >= t.loop) li.classList.add("in-loop");
      if (t.trigger === i) { li.classList.add("trigger"); li.title = s.action + " (the trigger holds here)"; }
      li.addEventListener("click", () => go(i));
      ol.append(li);
    });
    const slider = document.getElementById("slider");
    slider.max = String(t.steps.length);
    document.body.dataset.trace = String(traceIndex);
    drawSwim(t);
    go(opening(t));
  }

  // -- where a trace opens: the state a link names (#state=N, 1-based), else where the property fails
  // (a sometimes property: where it is reached, the last state) -------------------------------------------
  function linked() {
    const m = /^#(?:trace=(\d+)&)?state=(\d+)$/.exec(location.hash || "");
    return m ? { trace: m[1] ? Number(m[1]) - 1 : 0, state: Number(m[2]) - 1 } : null;
  }
  function opening(t) {
    const link = linked();
    if (link && link.trace === traceIndex && link.state >= 0 && link.state < t.steps.length) return link.state;
    return t.fail !== null && t.fail !== undefined ? t.fail : t.steps.length - 1;
  }
  function remember() {  // the address names the state shown, so it can be copied into a bug report
    const hash = (traceIndex ? "#trace=" + (traceIndex + 1) + "&" : "#") + "state=" + (step + 1);
    if (location.hash === hash) return;
    try { history.replaceState(null, "", hash); } catch (e) { /* a frame without an address (srcdoc) */ }
  }

  // -- one state ---------------------------------------------------------------------------------------------
  // ``viaLoop``: arrived at a lasso's loop state by its closing step, whose own changes are shown.
  function go(i, viaLoop) {
    const t = trace(), n = t.steps.length;
    step = Math.max(0, Math.min(n - 1, i));
    const lasso = t.loop !== null && t.loop !== undefined ? t.lasso : null;
    const closing = viaLoop && lasso ? lasso : null;
    const own = t.steps[step];
    const s = closing ? { action: closing.action || "(the step back to state " + (t.loop + 1) + ")", fields: own.fields, signals: own.signals, changed: closing.changed,
                          picture: closing.picture } : own;
    document.body.dataset.step = String(step);
    remember();
    document.body.dataset.via = closing ? "loop" : "";
    document.getElementById("slider").value = String(step + 1);
    document.getElementById("position").textContent = "state " + (step + 1) + " of " + n;
    document.getElementById("first").disabled = step === 0;
    document.getElementById("prev").disabled = step === 0;
    const looping = lasso !== null && !lasso.stutters;
    document.getElementById("next").disabled = step === n - 1 && !looping;
    document.getElementById("last").disabled = step === n - 1;
    for (const li of document.querySelectorAll("#timeline li")) {
      li.classList.toggle("current", Number(li.dataset.index) === step);
    }
    for (const row of document.querySelectorAll("#swim g.srow")) {
      row.classList.toggle("current", Number(row.dataset.index) === step);
    }
    const cur = document.querySelector("#timeline li.current");
    if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: "nearest" });

    const action = document.getElementById("action");
    action.textContent = "";
    action.className = step === 0 ? "initial" : "";
    action.append(document.createTextNode("State " + (step + 1) + (closing ? ", again" : "") + ": "));
    action.append(el("code", {}, s.action));
    if (closing) action.append(document.createTextNode(" (the step that closes the loop)"));

    const sig = document.getElementById("signals");
    sig.textContent = "";
    if (s.signals) { sig.append(el("b", {}, "signals ")); sig.append(document.createTextNode(s.signals)); }

    const failure = document.getElementById("failure");
    failure.textContent = "";
    if (t.fail === step && !closing) {
      failure.append(el("b", {}, t.name + (lasso ? " fails on this behaviour" : " fails here")));
      if (t.detail) failure.append(document.createTextNode(": " + t.detail));
    }
    const loopnote = document.getElementById("loopnote");
    loopnote.textContent = "";
    const trig = document.getElementById("trigger");
    trig.textContent = "";
    if (t.trigger === step && !closing) {  // a leads-to lasso: where P held and Q never holds after
      trig.textContent = "\u25B8 The trigger of " + t.name + " holds here, and from this state on its target never " +
        "holds (the loop repeats forever).";
    }
    if (lasso && step === n - 1 && !closing) {
      loopnote.textContent = lasso.stutters
        ? "\u21BB State " + n + " stutters forever: no fairly scheduled action is enabled, so nothing changes again."
        : "\u21BB The behaviour loops: " + (lasso.action || "a step") + " goes back to state " + (t.loop + 1) +
          ", and states " + (t.loop + 1) + "\u2013" + n + " repeat forever (next \u25B6 follows the loop).";
    } else if (closing) {
      loopnote.textContent = "\u21BB Back at state " + (t.loop + 1) + " by the loop: from here the same steps repeat forever.";
    }
    drawPicture(t, s);
    drawFields(s);
  }

  // -- the whole trace as a space-time (swimlane) view: one lane per process, one row per step -------------
  // Messages go from the row (and lane) that sent them to the row that received them; the records a
  // violation names are followed down every lane that holds them, and marked where one is lost.
  const LANE_W = 150, ROW_H = 30, HEAD = 28, LEFT = 36;
  function drawSwim(t) {
    const box = document.getElementById("swim-box"), holder = document.getElementById("swim");
    holder.textContent = "";
    box.hidden = !t.swim;
    if (!t.swim) return;
    const lanes = t.swim.lanes, n = t.steps.length;
    const lx = (name) => LEFT + lanes.indexOf(name) * LANE_W + LANE_W / 2;
    const ry = (i) => HEAD + i * ROW_H + ROW_H / 2;
    // Room on the right for the last lane's labels, and below for messages still in flight at the end.
    const width = LEFT + lanes.length * LANE_W + 200, height = HEAD + n * ROW_H + ROW_H + 8;
    const g = svg("svg", { width, height, class: "swim", role: "img", "aria-label": "space-time view of the trace" });
    for (let i = 0; i < n; i++) {  // rows first, so arrows and dots draw over them
      const row = svg("g", { class: "srow" + (t.fail === i ? " fails" : "") + (t.trigger === i ? " trigger" : "") +
                                 (t.loop !== null && t.loop !== undefined && i >= t.loop ? " in-loop" : ""), "data-index": i });
      row.append(svg("rect", { class: "band", x: 0, y: HEAD + i * ROW_H, width, height: ROW_H }));
      row.append(svg("text", { class: "n", x: 4, y: ry(i) + 4 }, String(i + 1)));
      row.append(svg("title", {}, (i + 1) + ": " + t.steps[i].action));
      row.addEventListener("click", () => go(i));
      g.append(row);
    }
    lanes.forEach((name) => {
      g.append(svg("text", { class: "lanehead", x: lx(name), y: 16, "text-anchor": "middle" }, name));
      g.append(svg("line", { class: "lifeline", x1: lx(name), x2: lx(name), y1: HEAD, y2: height - 4 }));
    });
    // The named records, followed: a bar down each lane while its log holds one.
    const keys = new Set(focusOf(t).keys);
    if (keys.size) {
      t.steps.forEach((st, i) => {
        if (!st.picture) return;
        for (const lane of st.picture.lanes) {
          if (!lanes.includes(lane.name) || !lane.cells.some((c) => c.key && keys.has(c.key))) continue;
          const held = svg("rect", { class: "held", x: lx(lane.name) - 3, y: HEAD + i * ROW_H, width: 6, height: ROW_H, "data-lane": lane.name, "data-index": i });
          held.append(svg("title", {}, lane.name + " holds " + [...keys].join(", ")));
          g.append(held);
        }
      });
      const failing = t.fail !== null && t.fail !== undefined ? t.steps[t.fail].picture : null;
      for (const m of (failing && failing.focus ? failing.focus.missing : [])) {
        const name = failing.lanes[m.lane] ? failing.lanes[m.lane].name : null;
        if (!name || !lanes.includes(name)) continue;
        const lost = svg("text", { class: "lost-mark", x: lx(name) - 14, y: ry(t.fail) + 6, "text-anchor": "middle", "data-lane": name }, "\u2717");
        lost.append(svg("title", {}, m.text));
        g.append(lost);
      }
    }
    const sent = {};
    const arrow = (x1, y1, x2, y2, cls, label) => {
      const a = svg("g", { class: cls });
      a.append(svg("line", { x1, y1, x2, y2 }));
      // The head drawn as a triangle (a page that references nothing, not even its own markers).
      const ang = Math.atan2(y2 - y1, x2 - x1), h = 7, w = 3.5;
      const bx = x2 - h * Math.cos(ang), by = y2 - h * Math.sin(ang);
      const pts = [[x2, y2], [bx - w * Math.sin(ang), by + w * Math.cos(ang)], [bx + w * Math.sin(ang), by - w * Math.cos(ang)]];
      a.append(svg("polygon", { class: "head", points: pts.map((p) => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" ") }));
      if (label) {
        a.append(svg("text", { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 3, "text-anchor": "middle" }, label.length > 34 ? label.slice(0, 33) + "\u2026" : label));
        a.append(svg("title", {}, label));
      }
      g.append(a);
      return a;
    };
    t.swim.events.forEach((ev, i) => {
      if (!ev) return;
      const x = lx(ev.lane), y = ry(i);
      for (const id of ev.receive) {
        const from = sent[id];
        if (!from) continue;
        const a = arrow(lx(from.lane), ry(from.row), x, y, "msg", from.label);
        a.setAttribute("data-from", String(from.row)); a.setAttribute("data-to", String(i));
        from.received = true;
      }
      for (const m of ev.send) sent[m.id] = { lane: m.from, row: i, label: m.label, received: false };
      for (const a of ev.arrows) {
        const fx = lx(a.from), tx = lx(a.to);
        const d = arrow(fx, y - 5, tx + (tx > fx ? -6 : 6), y + 5, "fetch", a.label);
        d.setAttribute("data-row", String(i));
      }
      const dot = svg("g", { class: "ev", "data-index": i, "data-lane": ev.lane });
      dot.append(svg("circle", { cx: x, cy: y, r: 4.5 }));
      const text = ev.label.length > 24 ? ev.label.slice(0, 23) + "\u2026" : ev.label;
      dot.append(svg("text", { x: x + 8, y: y - 6 }, text));
      dot.append(svg("title", {}, t.steps[i].action));
      dot.addEventListener("click", () => go(i));
      g.append(dot);
    });
    const stubs = {};
    for (const [id, m] of Object.entries(sent)) {  // sent and never received in the trace: still in flight
      if (m.received) continue;
      const k = stubs[m.row + "/" + m.lane] = (stubs[m.row + "/" + m.lane] || 0) + 1;  // fan out from one dot
      const a = arrow(lx(m.lane), ry(m.row), lx(m.lane) - 30 * k, ry(m.row) + ROW_H - 4, "msg inflight", "");
      a.setAttribute("data-id", id);
      const label = svg("text", { class: "inflight-label", x: lx(m.lane) + 8, y: ry(m.row) + 8 + 11 * k }, m.label + " (in flight)");
      g.append(label);
    }
    holder.append(g);
  }

  function focusOf(t) {
    const f = t.fail !== null && t.fail !== undefined && t.steps[t.fail].picture ? t.steps[t.fail].picture.focus : null;
    return f || { keys: [], offsets: [], missing: [] };
  }

  function slotsOf(t) {
    let slots = 1;
    for (const s of t.steps) {
      if (!s.picture) continue;
      for (const lane of s.picture.lanes) {
        slots = Math.max(slots, lane.cells.length, (lane.removed || []).length ? lane.removed[lane.removed.length - 1].at + 1 : 0);
        for (const m of lane.marks) slots = Math.max(slots, m.at);
      }
      for (const m of (s.picture.focus || {}).missing || []) if (m.at !== null) slots = Math.max(slots, m.at + 1);
    }
    return slots + 1;
  }

  function drawPicture(t, s) {
    const lanesBox = document.getElementById("lanes"), legend = document.getElementById("legend"),
      facts = document.getElementById("facts");
    lanesBox.textContent = ""; legend.textContent = ""; facts.textContent = "";
    const pic = s.picture;
    if (!pic) return;
    const focus = focusOf(t), failing = t.fail === step, slots = slotsOf(t);
    const keys = new Set(focus.keys);
    pic.lanes.forEach((lane, li) => {
      const row = el("div", { class: "lane" + (lane.dim ? " dim" : "") + (lane.changed ? " changed" : ""), "data-lane": lane.name });
      const head = el("div", { class: "head" });
      head.append(el("div", { class: "name" }, lane.name));
      for (const tag of lane.tags) head.append(el("span", { class: "tag" + (tag.tone ? " " + tag.tone : "") + (tag.changed ? " changed" : "") }, tag.text));
      row.append(head);
      const missing = failing ? focus.missing.filter((m) => m.lane === li) : [];
      // Mark labels go in rows under the cells: each in the first row where it does not run into
      // the label before it (HW and LEO at one offset stack; "flushed" next to "HW" too).
      const placed = [], rowEnds = [];
      for (const m of [...lane.marks].sort((a, b) => a.at - b.at)) {
        const x = PAD + m.at * CW, label = m.name + (m.changed ? " \u2190" : "");
        let r = rowEnds.findIndex((end) => end < x);
        if (r < 0) { r = rowEnds.length; rowEnds.push(0); }
        rowEnds[r] = x + 4 + label.length * 6.5;
        placed.push({ m, x, r, label });
      }
      const stack = Math.max(1, rowEnds.length);
      const height = TOP + CH + 6 + stack * MARK_LINE + (missing.length ? 16 * missing.length : 0);
      const width = PAD * 2 + slots * CW;
      const g = svg("svg", { width, height, class: "log" });
      if (failing) {
        for (const off of focus.offsets) {
          if (off < slots) g.append(svg("rect", { class: "offcol", x: PAD + off * CW - 2, y: 0, width: CW + 4, height: TOP + CH + 4 }));
        }
      }
      for (let i = 0; i < slots; i++) g.append(svg("rect", { class: "slot", x: PAD + i * CW + 2, y: TOP, width: CW - 4, height: CH, rx: 3 }));
      lane.cells.forEach((c, i) => {
        const x = PAD + i * CW;
        const cls = ["cell"];
        if (c.changed) cls.push("changed");
        if (c.key && keys.has(c.key)) cls.push("focus");
        if (c.tone) cls.push(c.tone);
        const grp = svg("g", { class: cls.join(" "), "data-offset": i, "data-key": c.key || null });
        grp.append(svg("title", {}, c.hint || c.text));
        grp.append(svg("rect", { class: "box", x: x + 2, y: TOP, width: CW - 4, height: CH, rx: 3, fill: fill(c.color) }));
        grp.append(svg("text", { class: "id", x: x + CW / 2, y: TOP + CH / 2 }, c.text));
        if (c.tick) grp.append(svg("text", { class: "tick", x: x + CW - 13, y: TOP + 11 }, "\u2713"));
        if (c.changed) grp.append(svg("rect", { class: "ring", x: x + 3.5, y: TOP + 1.5, width: CW - 7, height: CH - 3, rx: 2 }));
        if (c.key && keys.has(c.key)) grp.append(svg("rect", { class: "halo", x: x - 0.5, y: TOP - 2.5, width: CW + 1, height: CH + 5, rx: 5 }));
        g.append(grp);
      });
      for (let i = 0; i < slots; i++) g.append(svg("text", { class: "off", x: PAD + i * CW + CW / 2, y: TOP - 4 }, String(i)));
      missing.forEach((m, k) => {
        const diverged = m.at !== null && m.at < lane.cells.length;  // another record sits there
        const grp = svg("g", { class: "missing " + (diverged ? "diverged" : "lost"), "data-offset": m.at === null ? "" : m.at });
        grp.append(svg("title", {}, m.text));
        if (m.at !== null && m.at < slots) {
          const x = PAD + m.at * CW;
          if (m.at >= lane.cells.length) {
            grp.append(svg("rect", { x: x + 2, y: TOP, width: CW - 4, height: CH, rx: 3 }));
            // A record truncated away by this very step still shows (crossed out) inside the box.
            if (!(lane.removed || []).some((r) => r.at === m.at)) grp.append(svg("text", { x: x + CW / 2, y: TOP + CH / 2 }, "\u2717"));
          } else {
            grp.append(svg("rect", { class: "over", x: x - 1, y: TOP - 3, width: CW + 2, height: CH + 6, rx: 5 }));
          }
        }
        const cx = m.at === null ? PAD : PAD + m.at * CW;
        grp.append(svg("text", { class: "caption", x: cx, y: TOP + CH + 6 + stack * MARK_LINE + 12 + 16 * k }, "\u2717 " + m.text));
        g.append(grp);
      });
      for (const r of lane.removed || []) {
        const grp = svg("g", { class: "removed changed", "data-offset": r.at });
        grp.append(svg("title", {}, "removed in this step (truncated)"));
        grp.append(svg("rect", { x: PAD + r.at * CW + 3, y: TOP + 1, width: CW - 6, height: CH - 2, rx: 3 }));
        grp.append(svg("text", { x: PAD + r.at * CW + CW / 2, y: TOP + CH / 2 }, r.text));
        grp.append(svg("line", { x1: PAD + r.at * CW + 6, y1: TOP + CH - 4, x2: PAD + (r.at + 1) * CW - 6, y2: TOP + 4 }));
        g.append(grp);
      }
      const drawn = new Set();
      for (const { m, x, r, label } of placed) {
        const grp = svg("g", { class: "mark " + m.name + (m.changed ? " changed" : ""), "data-mark": m.name, "data-at": m.at });
        if (!drawn.has(m.at) || m.changed) grp.append(svg("line", { x1: x, x2: x, y1: TOP - 3, y2: TOP + CH + 4 }));
        drawn.add(m.at);
        grp.append(svg("text", { x: x + 2, y: TOP + CH + 4 + (r + 1) * MARK_LINE - 2 }, label));
        grp.append(svg("title", {}, m.name + " = " + m.at));
        g.append(grp);
      }
      row.append(g);
      lanesBox.append(row);
    });
    const epochs = {};
    for (const st of t.steps) if (st.picture) Object.assign(epochs, st.picture.legend || {});
    for (const [c, text] of Object.entries(epochs)) {
      const item = el("span", {});
      const sw = el("span", { class: "sw" });
      sw.style.background = fill(Number(c));
      item.append(sw, document.createTextNode(text));
      legend.append(item);
    }
    legend.append(el("span", { class: "key-changed" }, "\u25A1 orange: changed by this step"));
    if (focus.keys.length || focus.missing.length) {
      legend.append(el("span", { class: "key-focus" }, "\u25A1 red: named by " + t.name));
    }
    for (const f of pic.facts) {
      facts.append(el("div", { class: "label" }, f.label));
      const v = el("div", {});
      for (const item of f.items) v.append(el("span", { class: "tag" + (item.tone ? " " + item.tone : "") + (item.changed ? " changed" : "") }, item.text));
      facts.append(v);
    }
  }

  function drawFields(s) {
    const docs = trace().docs || {};
    const body = document.querySelector("#fields tbody");
    body.textContent = "";
    const changed = {};
    for (const [path, old, now] of s.changed || []) changed[path] = [old, now];
    const seen = new Set();
    const row = (path, value) => {
      const tr = el("tr", { "data-path": path });
      tr.append(el("td", {}, path));
      const td = el("td");
      if (path in changed) {
        tr.className = "changed";
        td.append(el("del", {}, changed[path][0]), document.createTextNode(" \u2192 "), el("ins", {}, changed[path][1]));
      } else {
        td.textContent = value;
      }
      tr.append(td);
      tr.append(el("td", { class: "doc" }, docs[path] || ""));  // what the field means (the model's field_docs)
      body.append(tr);
    };
    for (const [path, value] of s.fields) { seen.add(path); row(path, value); }
    for (const path of Object.keys(changed)) if (!seen.has(path)) row(path, "");
  }

  // -- input ---------------------------------------------------------------------------------------------------
  function next() {
    const t = trace(), lasso = t.loop !== null && t.loop !== undefined ? t.lasso : null;
    if (step === t.steps.length - 1 && lasso && !lasso.stutters) go(t.loop, true); else go(step + 1);
  }
  function wire() {
    document.getElementById("first").addEventListener("click", () => go(0));
    document.getElementById("prev").addEventListener("click", () => go(step - 1));
    document.getElementById("next").addEventListener("click", next);
    document.getElementById("last").addEventListener("click", () => go(trace().steps.length - 1));
    document.getElementById("slider").addEventListener("input", (e) => go(Number(e.target.value) - 1));
    document.addEventListener("keydown", (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey || !DATA.traces.length) return;
      const moves = { ArrowRight: next, ArrowLeft: () => go(step - 1), Home: () => go(0),
                      End: () => go(trace().steps.length - 1) };
      if (moves[e.key]) { e.preventDefault(); moves[e.key](); }
    });
  }

  drawHeader();
  if (DATA.traces.length) {
    document.getElementById("trace").hidden = false;
    const link = linked();
    if (link && link.trace > 0 && link.trace < DATA.traces.length) traceIndex = link.trace;
    window.addEventListener("hashchange", () => {  // a #state=N link followed inside the page
      const to = linked();
      if (!to || to.trace < 0 || to.trace >= DATA.traces.length) return;
      if (to.trace !== traceIndex) { traceIndex = to.trace; drawTabs(); showTrace(); } else go(to.state);
    });
    drawTabs();
    wire();
    showTrace();
  } else {
    document.getElementById("empty").hidden = false;
  }
  document.body.dataset.ready = "1";
})();
