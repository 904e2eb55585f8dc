// The comparison page (`whyslow report A B`): the verdict of `whyslow diff` (its JSON schema, in
// D.diff), the steady-step numbers side by side, a typical step of each trace on two timelines at
// the same scale that zoom and pan together, what B runs instead of A, and the kernels that changed.

const SIDE_COLORS = { a: "#8c9bab", b: "#4e79a7" };

function diffHeader(d) {
  document.getElementById("file").textContent = `A: ${d.a.path}  vs  B: ${d.b.path}`;
  const side = s => `${s.device || "no GPU described"}, ${s.whole_window ? "no steps (the whole trace)" : `${s.steady_steps} steady steps`}`;
  document.getElementById("meta").textContent = `A: ${side(d.a)} · B: ${side(d.b)}`;
  document.getElementById("footer").textContent =
    `whyslow ${d.whyslow_version} · self-contained page: no network needed · the numbers are those of whyslow diff --json`;
  const mismatches = document.getElementById("mismatches");
  for (const m of d.mismatches) mismatches.append(el("li", {}, m));
}

function renderVerdict(d) {
  const v = d.verdict, box = document.getElementById("verdict");
  const headline = !v.comparable ? "Not comparable: the traces do not look like the same workload"
    : v.faster === "same" ? "No difference beyond noise"
    : `${v.faster.toUpperCase()} is faster: B − A = ${v.delta_step_us >= 0 ? "+" : ""}${fmtDur(v.delta_step_us * 1000)} per step ` +
      (v.delta_pct === null ? "(no percentage: A's median step is 0)"  // delta_pct is null then
        : `(${v.delta_pct >= 0 ? "+" : "-"}${sig3(Math.abs(v.delta_pct))} %)`);
  box.className = v.comparable && v.faster !== "same" ? `faster-${v.faster}` : "";
  box.append(el("p", { class: "headline", "data-faster": v.faster === null ? "" : v.faster }, headline));
  if (v.summary) box.append(el("p", { class: "summary" }, v.summary));
  if (v.try && v.try.length) box.append(el("p", { class: "note" }, "What to try:"), el("ul", {}, ...v.try.map(t => el("li", {}, t))));
}

// Medians per steady step, B − A coloured by whether it helps (less time, fewer launches).
function renderStepTable(d) {
  const rows = [
    ["step", "step_us", true], ["CPU (not blocked)", "cpu_us", true], ["blocked on the GPU", "sync_wait_us", true],
    ["GPU busy", "gpu_busy_us", true], ["GPU idle", "gpu_idle_us", true], ["kernels", "kernels_per_step", false],
    ["launches", "launches_per_step", false], ["memcpys", "memcpys_per_step", false], ["memsets", "memsets_per_step", false],
  ];
  const spread = (s, key) => {
    const k = { step_us: "step_us", cpu_us: "cpu_us", gpu_busy_us: "gpu_busy_us" }[key], r = k && s.spread[k];
    return r ? ` (${fmtDur(r.min * 1000)}–${fmtDur(r.max * 1000)})` : "";
  };
  const value = (s, key, time) => time ? fmtDur(s[key] * 1000) + spread(s, key) : fmtCount(s[key]);
  const table = el("table", { class: "compare" }, el("tr", {}, el("th", {}, ""), el("th", {}, "A"), el("th", {}, "B"), el("th", {}, "B − A")));
  for (const [label, key, time] of rows) {
    const delta = d.b[key] - d.a[key];
    const text = time ? (delta > 0 ? "+" : "") + fmtDur(delta * 1000) : (delta > 0 ? "+" : "") + fmtCount(delta);
    table.append(el("tr", {}, el("td", {}, label), el("td", {}, value(d.a, key, time)), el("td", {}, value(d.b, key, time)),
      el("td", { class: delta < 0 ? "better" : delta > 0 ? "worse" : "" }, text)));
  }
  document.getElementById("steps-compare").append(table);
  document.getElementById("steps-note").textContent =
    `Medians (min–max) over the steady steps of each trace; left out: ${[...d.a.left_out, ...d.b.left_out].join(", ") || "none"}.`;
  barChart(document.getElementById("chart-compare"),
    rows.filter(r => r[2]).map(([label, key]) => ({ label, values: [d.a[key] * 1000, d.b[key] * 1000],
      text: `A ${fmtDur(d.a[key] * 1000)} · B ${fmtDur(d.b[key] * 1000)}` })),
    [["A", SIDE_COLORS.a], ["B", SIDE_COLORS.b]], "");
}

// Two timelines, each opened on its typical step, at one scale; moving one moves the other by the
// same amount from the start of its own step.
function renderTimelines(D) {
  const sides = ["a", "b"].map(k => {
    const data = D[k], model = new TimelineModel(data);
    document.getElementById(`title-${k}`).textContent =
      `${k.toUpperCase()}: ${data.meta.path} · ${data.focus.name} (${fmtDur(data.focus.end - data.focus.start)} with the GPU work it launched)`;
    return { k, data, model, focus: data.focus };
  });
  const span = Math.max(...sides.map(s => s.focus.end - s.focus.start)) * 1.1;
  for (const s of sides) {
    const other = () => sides.find(x => x !== s);
    s.timeline = new Timeline(document.getElementById(`timeline-${s.k}`), s.model, s.data, () => {}, {
      suffix: s.k.toUpperCase(),
      onView: t => {
        const o = other();
        if (o.timeline) o.timeline.setView(o.focus.start + (t.v0 - s.focus.start), o.focus.start + (t.v1 - s.focus.start), true);
      },
    });
  }
  for (const s of sides) s.timeline.setView(s.focus.start - span * 0.04, s.focus.start + span * 0.96, true);
  for (const s of sides) s.timeline.draw();
  renderLegend(D.a, sides.map(s => s.model), document.getElementById("legend"));
  return sides;
}

function renderReplacements(d) {
  const k = d.kernels, list = document.getElementById("replacements");
  document.getElementById("replacements-note").textContent = k.alignment_note ||
    "A typical step of each trace, aligned on the GPU work both run alike; each entry is a stretch where they differ.";
  const work = (names, ops, us) => names.length
    ? `${names.map(shortLabel).join(", ")} (${fmtDur(us * 1000)}${ops.length ? ", from " + ops.join(", ") : ""})` : "nothing";
  const fusion = { kernel: "fused: fewer kernels", graph: "CUDA graph replay", dispatcher: "fused in PyTorch only",
    none: "different kernels, same count", removed: "only in A", added: "only in B" };
  for (const r of k.replacements)
    list.append(el("li", {}, el("span", { class: "fusion" }, fusion[r.fusion] || r.fusion), " ",
      el("b", {}, "A: "), work(r.a, r.a_ops, r.a_us), el("br"), el("b", {}, "B: "), work(r.b, r.b_ops, r.b_us)));
  if (!k.replacements.length && !k.alignment_note) list.append(el("li", { class: "none" }, "B runs the same GPU work as A."));
}

function renderKernelTables(d) {
  const k = d.kernels, box = document.getElementById("kernels-compare");
  const table = (title, rows, columns) => {
    if (!rows.length) return;
    box.append(el("h3", {}, title));
    const t = el("table", { class: "compare" }, el("tr", {}, ...["kernel", ...columns.map(c => c[0])].map(h => el("th", {}, h))));
    for (const r of rows.slice(0, 15))
      t.append(el("tr", { title: r.name }, el("td", {}, shortLabel(r.name).slice(0, 70)), ...columns.map(c => el("td", {}, c[1](r)))));
    box.append(t);
  };
  const us = v => fmtDur(v * 1000), calls = v => sig3(v);
  table("In both (largest change first)", k.matched, [["calls A", r => calls(r.a_calls_per_step)], ["calls B", r => calls(r.b_calls_per_step)],
    ["A", r => us(r.a_us_per_step)], ["B", r => us(r.b_us_per_step)],
    ["B − A", r => (r.b_us_per_step >= r.a_us_per_step ? "+" : "") + us(r.b_us_per_step - r.a_us_per_step)]]);
  table("Only in A", k.only_a, [["calls", r => calls(r.a_calls_per_step)], ["time", r => us(r.a_us_per_step)]]);
  table("Only in B", k.only_b, [["calls", r => calls(r.b_calls_per_step)], ["time", r => us(r.b_us_per_step)]]);
}

function renderDiff(D, t0) {
  const d = D.diff;
  diffHeader(d);
  renderVerdict(d);
  renderStepTable(d);
  renderTimelines(D);
  renderReplacements(d);
  renderKernelTables(d);
  renderFindings(D.a, document.getElementById("findings-a"), false);
  renderFindings(D.b, document.getElementById("findings-b"), false);
  window.whyslowReport = { data: D };
  const ms = performance.now() - t0, ds = document.body.dataset;
  ds.ready = "1";
  ds.faster = d.verdict.faster === null ? "" : d.verdict.faster;
  ds.setupMs = ms.toFixed(1);
  console.log(`whyslow: comparison ready: ${ds.kernelRectsA} and ${ds.kernelRectsB} kernel rectangles drawn, ` +
    `set up in ${ms.toFixed(1)} ms`);
}
