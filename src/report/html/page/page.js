// The report of one trace: fills in the header and the findings, starts the timeline and draws
// the charts. Finding links are URL fragments (#finding=<id>, #view=<from µs>,<to µs>), so a
// shared link opens the report on the same place.
// For tests: <body data-ready data-kernel-rects data-kernels-shown …> and one console line.

function renderHeader(D) {
  const m = D.meta;
  document.getElementById("file").textContent = m.path;
  const parts = [m.device || "no GPU described", `${fmtCount(m.events)} events`, `${D.steps.length} step${D.steps.length === 1 ? "" : "s"}`,
    `window ${fmtDur(m.window_ns)}`, m.gpu];
  if (m.truncated) parts.push("truncated file: the events before the cut");
  document.getElementById("meta").textContent = parts.join(" · ");
  document.getElementById("footer").textContent =
    `whyslow ${m.version} · self-contained page: no network needed · trace window starts at ts = ${m.window_start_us} µs ` +
    "(the clock of the trace file; offsets are from there)";
}

// Where a finding shows: the span of the events it names, else its shaded span, else everything.
function findingRange(D, f) {
  let a = Infinity, b = -Infinity;
  for (const ev of f.events) { a = Math.min(a, ev.start); b = Math.max(b, ev.start + ev.dur); }
  for (const [s, e] of f.shade) { a = Math.min(a, s); b = Math.max(b, e); }
  return a <= b ? [a, b] : [0, D.meta.window_ns];
}

// `links`: each finding links to where it shows on the page's timeline.
function renderFindings(D, list, links) {
  if (!D.findings.length) {
    list.append(el("li", { class: "none" }, "No finding: nothing in this trace calls for attention."));
    return;
  }
  D.findings.forEach((f, i) => {
    const evidence = el("table", {}, ...f.evidence.map(([k, v, unit]) =>
      el("tr", {}, el("td", {}, el("code", {}, k)), el("td", { class: "num" }, v === null ? "–" : String(+v.toPrecision(6))), el("td", {}, unit))));
    const events = el("ul", {}, ...f.events.map(ev => el("li", {},
      `${ev.role}: `, el("code", {}, ev.name.length > 120 ? ev.name.slice(0, 119) + "…" : ev.name),
      ` on ${ev.track}, at ${fmtOffset(ev.start)}, ${fmtDur(ev.dur)} `,
      links ? el("a", { href: `#view=${ev.start / 1000},${(ev.start + ev.dur) / 1000}`, class: "view" }, "show") : null)));
    const tries = el("ul", {}, ...f.try.map(t => el("li", {}, t)));
    const li = el("li", { class: `finding sev-${f.severity}`, id: links ? `finding-${f.id}` : null, "data-finding-id": f.id },
      el("div", { class: "head" },
        el("span", { class: "badge" }, f.severity),
        el("code", {}, f.id),
        el("span", { class: "title" }, f.title),
        links ? el("a", { class: "show", href: `#finding=${f.id}` }, "show on the timeline ›") : null),
      el("details", {},
        el("summary", {}, "why, the numbers, the events, what to try"),
        el("p", { class: "detail" }, f.detail),
        evidence,
        f.events.length ? el("p", { class: "note" }, "Events that show it:") : null, f.events.length ? events : null,
        el("p", { class: "note" }, "What to try:"), tries,
        ...(f.code || []).flatMap(c => [el("p", { class: "note" }, c.caption), el("pre", { class: "code" }, c.text)])));
    list.append(li);
  });
}

// The colour classes the models use, and what the finding marks mean.
function renderLegend(D, models, legend) {
  const used = new Set();
  for (const model of models) {
    for (const c of model.cls) used.add(c);
    for (const lane of model.lanes) for (const ov of lane.overview) for (const c of ov.cls) used.add(c);
  }
  D.classes.forEach(([key, label], c) => {
    if (used.has(c)) legend.append(el("span", { style: `--c:${CLASS_COLORS[key] || "#aaa"}` }, label));
  });
  if (!D.findings.length) return;
  legend.append(el("span", { style: `--c:${SEVERITY_COLORS.critical}` }, "outlined / shaded: a finding (colour = severity)"));
  if (D.findings.some(f => f.cover.length))
    legend.append(el("span", { style: `--c:${SEVERITY_COLORS.warning}` }, "dashed outline: GPU work that ran while the CPU waited"));
}

// The critical path's legend entry: what its line is, a box that shows or hides it, a link to its step.
function renderPathKey(timeline, legend) {
  const p = timeline.m.path;
  if (!p) return;
  const box = el("input", { type: "checkbox", id: "show-path", checked: "", onchange: ev => timeline.setShowPath(ev.target.checked) });
  legend.append(el("span", { class: "path-key", style: `--c:${PATH_COLOR}` },
    el("label", {}, box, `critical path of ${p.name}` +
      (p.end < p.stepEnd ? ` (its first ${fmtDur(p.end - p.start)} of ${fmtDur(p.stepEnd - p.start)})` : "") +
      ": what set its length (dashed: launch, stream and sync latencies and waits)"), " ",
    el("a", { href: `#view=${p.start / 1000},${p.end / 1000}`, class: "view" }, "show")));
}

function renderCoverage(D, model) {
  const m = D.meta, note = document.getElementById("coverage");
  let text = m.complete
    ? `Every one of the ${fmtCount(m.embedded)} events is drawn. Arrows go from each launch call to the GPU work it started.`
    : `This trace has ${fmtCount(m.drawable)} events; the page holds ${fmtCount(m.embedded)} of them one by one — ` +
      "the outlier and steady-state steps and the events behind the findings (green under the axis), and every event " +
      "long enough to show at full zoom. Elsewhere it draws a per-pixel summary (paler). For every event, open the " +
      "trace in Perfetto (whyslow annotate adds the findings to it).";
  const tall = model.lanes.filter(lane => lane.rows > COLLAPSED_ROWS).length;
  if (tall > 0)
    text += ` ${tall} lane${tall === 1 ? " shows its" : "s show their"} first ${COLLAPSED_ROWS} rows of nesting: click a lane's name for all of them.`;
  if (D.flattened_deep > 0)
    text += ` ${fmtCount(D.flattened_deep)} events nested deeper than ${SCHEMA.MAX_LANE_ROWS} levels are drawn on one last row of their lane, flattened (inner over outer).`;
  if (D.hidden_lanes > 0) text += ` ${fmtCount(D.hidden_lanes)} threads and streams with the fewest events are not drawn: the page keeps the busiest.`;
  note.textContent = text;
}

function renderCharts(D, timeline) {
  const pick = i => {
    const s = D.steps[i];
    timeline.focus(s[ST.START], s[ST.START] + s[ST.DURATION]);
    document.getElementById("timeline-section").scrollIntoView({ block: "start" });
  };
  const log = stepChart(document.getElementById("chart-steps"), D.steps, D.cold_step, pick);
  document.getElementById("steps-note").textContent = D.steps.length
    ? "Per step: its duration, its CPU time (duration minus the time blocked waiting for the GPU) and the GPU busy " +
      "time of the work it launched (all streams merged)." + (log ? " Logarithmic axis: one step is far longer than the rest." : "") +
      " Click a step to see it on the timeline."
    : "";
  // Steps that are loops (a generate()'s prefill and decode passes): one line each; a click shows the loop.
  const loopsNote = document.getElementById("loops-note");
  if (D.loops && D.loops.length) {
    loopsNote.hidden = false;
    loopsNote.textContent = "";
    for (const [step, n, first, median, gpu, firstTokens, perIteration, from, to] of D.loops) {
      const line = document.createElement("div");
      const tokens = perIteration > 0
        ? ` Prefill ${fmtCount(firstTokens)} tokens in ${fmtDur(first)}; decode ${fmtCount(perIteration)} tokens per iteration, ` +
          `${fmtCount(Math.round(perIteration * 1e9 / median))} tokens/s.`
        : "";
      line.textContent = `${step} is a loop of ${fmtCount(n)} iterations: the first ${fmtDur(first)}, then a median ` +
        `${fmtDur(median)} each (GPU busy ${fmtDur(gpu)}).${tokens}`;
      line.style.cursor = "pointer";
      line.title = "Show the loop on the timeline";
      line.addEventListener("click", () => {
        timeline.focus(from, to);
        document.getElementById("timeline-section").scrollIntoView({ block: "start" });
      });
      loopsNote.appendChild(line);
    }
  }
  if (D.memory) {
    document.getElementById("memory-section").hidden = false;
    const [, peakBytes] = D.memory.peak;
    document.getElementById("memory-note").textContent =
      `Bytes allocated by tensors and reserved by the caching allocator on ${D.memory.device}, from the ` +
      `profile_memory records; dashed lines are step starts, the dot is the largest step peak ` +
      `(${fmtBytes(peakBytes)}). Click to see a moment on the timeline; click the dot for the op that made ` +
      `the largest tensor live there.`;
    memoryChart(document.getElementById("chart-memory"), D.memory, D.steps, (from, to) => {
      timeline.focus(from, to);
      document.getElementById("timeline-section").scrollIntoView({ block: "start" });
    });
  }
  const cpuRows = D.cpu_time.map(c =>
    ({ label: c.category.replace(/_/g, " "), values: [c.per_step_ns],
       text: `${fmtDur(c.per_step_ns)} ${D.steps.length ? "per step" : ""} · ${fmtDur(c.total_ns)} in all` }));
  barChart(document.getElementById("chart-cpu"), cpuRows, [[D.steps.length ? "median per step" : "main thread", "#9467bd"]],
    "No CPU thread to break down.");
  const k = D.kernels;
  const kernelRows = k.top.map(([name, short, total, calls]) =>
    ({ label: short, title: name, values: [total], text: `${fmtDur(total)} · ${fmtCount(calls)} calls` }));
  if (k.rest_count > 0)
    kernelRows.push({ label: `${fmtCount(k.rest_count)} other kernels`, values: [k.rest_ns], text: fmtDur(k.rest_ns) });
  barChart(document.getElementById("chart-kernels"), kernelRows, [["GPU time", "#2e9e44"]], "This trace has no kernels.");
  const annotationRows = D.annotations.map(([name, cpu, gpu, calls, kernels]) =>
    ({ label: name, values: [cpu, gpu], text: `CPU ${fmtDur(cpu)} · GPU ${fmtDur(gpu)} · ${fmtCount(calls)} calls, ${fmtCount(kernels)} kernels` }));
  if (rooflineChart(document.getElementById("chart-roofline"), D.roofline)) {
    document.getElementById("roofline-section").hidden = false;
    document.getElementById("roofline-note").textContent =
      `${D.roofline.device}: roofs from ${D.roofline.datasheet.source}` +
      (D.roofline.measured ? `; dashed: measured (${D.roofline.measured.source})` : "") +
      ". FLOPs and bytes come from the shapes of the ops that launched each kernel (record_shapes); hover a dot for its numbers.";
  }
  barChart(document.getElementById("chart-annotations"), annotationRows, [["CPU time", "#9467bd"], ["GPU time launched", "#2e9e44"]],
    "This trace has no record_function blocks (torch.profiler.record_function or whyslow scopes).");
}

function renderSelection(model, timeline, e) {
  const box = document.getElementById("selection");
  if (e < 0) {
    box.textContent = "Click an event to pin its details here.";
    return;
  }
  box.innerHTML = timeline.describeEvent(e).replace(/<br>/g, " · ");
}

// #finding=<id> focuses a finding; #view=<from µs>,<to µs> shows a time range.
function applyHash(D, timeline, hash) {
  const finding = /^#finding=(.+)$/.exec(hash);
  const view = /^#view=(-?[\d.]+),(-?[\d.]+)$/.exec(hash);
  document.querySelectorAll(".finding.active").forEach(n => n.classList.remove("active"));
  if (finding) {
    const i = D.findings.findIndex(f => f.id === decodeURIComponent(finding[1]));
    if (i < 0) return false;
    const f = D.findings[i], [a, b] = findingRange(D, f);
    const first = f.events.find(ev => ev.i >= 0);
    timeline.setActiveFinding(i);
    timeline.focus(a, b, first ? first.i : f.mark.length ? f.mark[0] : -1);
    document.getElementById(`finding-${f.id}`).classList.add("active");
    return true;
  }
  if (view) {
    timeline.focus(+view[1] * 1000, +view[2] * 1000);
    return true;
  }
  return false;
}

function renderReport(D, t0) {
  renderHeader(D);
  const model = new TimelineModel(D);
  let timeline = null;
  timeline = new Timeline(document.getElementById("timeline"), model, D, e => renderSelection(model, timeline, e));
  renderSelection(model, timeline, -1);
  renderFindings(D, document.getElementById("findings"), true);
  renderLegend(D, [model], document.getElementById("legend"));
  renderPathKey(timeline, document.getElementById("legend"));
  renderCoverage(D, model);
  renderCharts(D, timeline);
  renderBlocks(D, timeline);
  const go = (hash, scroll) => {
    if (applyHash(D, timeline, hash) && scroll) document.getElementById("timeline-section").scrollIntoView({ block: "start" });
  };
  document.addEventListener("click", ev => {
    const a = ev.target.closest && ev.target.closest("a[href^='#finding='], a[href^='#view=']");
    if (!a) return;
    ev.preventDefault();
    history.replaceState(null, "", a.getAttribute("href"));
    go(a.getAttribute("href"), true);
  });
  window.addEventListener("hashchange", () => go(location.hash, true));
  if (location.hash) go(location.hash, true);  // a shared link opens on the timeline, as a click would
  timeline.draw();  // now, not at the next frame: the first picture is complete when the page has loaded

  // For the browser's console (and the tests): the data, the model and the timeline.
  window.whyslowReport = { data: D, model, timeline };
  const ms = performance.now() - t0;
  const ds = document.body.dataset;
  ds.ready = "1";
  ds.findings = D.findings.map(f => f.id).join(" ");
  ds.eventsEmbedded = model.n;
  ds.setupMs = ms.toFixed(1);
  ds.readyMs = performance.now().toFixed(1);  // since the browser started opening the page
  console.log(`whyslow: report ready: ${model.n} events embedded, ${ds.kernelRects} kernel rectangles ` +
    `(${ds.kernelsShown} kernels shown), ${ds.rects} rectangles drawn, set up in ${ms.toFixed(1)} ms, ` +
    `ready ${ds.readyMs} ms after opening`);
}
