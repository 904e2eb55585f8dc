// The page of one job's ranks (`whyslow report r0.json r1.json …`): the ranks table and the
// cross-rank findings of `whyslow explain r0 r1 …` (D.job, its JSON schema), then every rank's
// lanes on one timeline (ranks_data.js), the clocks aligned on the collectives' ends: each rank's
// waits for the last rank shaded orange, its own late arrivals red, the straggler's slow block
// outlined; then each rank's own findings.
// For tests: <body data-ready data-ranks data-lane-groups …> and one console line.

// The job's JSON gives µs.
function fmtUs(v) { return fmtDur(v * 1000); }

function renderRanksTable(job) {
  const us = fmtUs;
  const columns = [["rank", r => r.rank], ["trace", r => r.path.split("/").pop()], ["steady steps", r => r.steps],
    ["step", r => us(r.step_us)], ["compute", r => us(r.compute_us)], ["communication", r => us(r.comm_us)],
    ["exposed", r => us(r.exposed_comm_us)], ["late per step", r => us(r.late_us)], ["times last", r => fmtCount(r.times_last)],
    ["clock offset", r => us(r.clock_offset_us)]];
  const table = el("table", { class: "compare", id: "ranks" }, el("tr", {}, ...columns.map(([h]) => el("th", {}, h))));
  for (const r of job.ranks) table.append(el("tr", { title: r.path }, ...columns.map(([, v]) => el("td", {}, String(v(r))))));
  document.getElementById("ranks-table").append(table);
  const c = job.collectives;
  document.getElementById("ranks-note").textContent = c.matched
    ? `${fmtCount(c.matched)} collectives every rank runs, matched by ${c.matched_by === "seq" ? "process group and sequence number" : "order within their process group"}; ` +
      `arrival skew (last start − first start) median ${fmtUs(c.median_skew_us)}, at most ${fmtUs(c.max_skew_us)}. Medians over each rank's steady steps.`
    : "No collective that every rank runs: the ranks cannot be lined up on their collectives, so each keeps its own clock.";
}

// The cross-rank findings (straggler): what `explain r0 r1 …` says, open.
function renderJobFindings(job) {
  const list = document.getElementById("findings");
  if (!job.findings.length) {
    list.append(el("li", { class: "none" }, "No cross-rank finding: no rank arrives last often and late enough to hold the others back."));
    return;
  }
  for (const f of job.findings)
    list.append(el("li", { class: `finding sev-${f.severity}`, "data-finding-id": f.id },
      el("div", { class: "head" }, el("span", { class: "badge" }, f.severity), el("code", {}, f.id), el("span", { class: "title" }, f.title)),
      el("p", { class: "detail" }, f.detail),
      f.cause ? el("p", { class: "note" }, `Outlined on the timeline: ${f.cause.block} on rank ${f.cause.rank}, ` +
        `${fmtUs(f.cause.block_us)} per step against ${fmtUs(f.cause.others_us)} on the others.`) : null,
      el("ul", {}, ...f.try.map(t => el("li", {}, t)))));
}

function renderRankFindings(job) {
  const box = document.getElementById("rank-findings");
  for (const r of job.ranks) {
    box.append(el("h3", {}, `rank ${r.rank}: ${r.path}`));
    box.append(el("ul", { class: "findings" }, ...(r.findings.length ? r.findings : [null]).map(f => f
      ? el("li", { class: `sev-${f.severity}` }, el("span", { class: "badge" }, f.severity), " ", el("code", {}, f.id), " ", f.title)
      : el("li", { class: "none" }, "No finding."))));
  }
}

function renderRanks(D, t0) {
  const job = D.job, merged = mergeRanks(D);
  document.getElementById("file").textContent = `a job of ${job.ranks.length} ranks`;
  document.getElementById("meta").textContent = job.ranks.map(r => `rank ${r.rank}: ${r.path}`).join(" · ");
  document.getElementById("footer").textContent = `whyslow ${merged.meta.version} · self-contained page: no network needed · ` +
    "time 0 is the earliest rank's trace window start, every clock moved onto the lowest rank's";
  renderRanksTable(job);
  renderJobFindings(job);
  const model = new TimelineModel(merged);
  let timeline = null;
  timeline = new Timeline(document.getElementById("timeline"), model, merged, e => renderSelection(model, timeline, e));
  renderSelection(model, timeline, -1);
  document.getElementById("coverage").textContent =
    "Each rank's lanes (named after it, a dark line between ranks) are moved by its clock offset, so that a collective " +
    "ends at the same time on every rank. Orange: a rank inside a collective, waiting for the last rank to arrive; " +
    "red: the last rank's lateness at it (from the first rank's arrival to its own)." +
    (merged.findings.length ? " Outlined: the straggler's block that takes longer than on the others." : "") +
    (merged.meta.complete ? "" : " Large traces: each rank's page holds its detail windows one by one, elsewhere a summary (paler).") +
    (merged.steps.length ? ` The steps strip shows rank ${merged.steps_rank}'s steps` +
      (job.collectives.matched ? ", the rank the others waited for most." : ".") : "");
  const legend = document.getElementById("legend");
  renderLegend(merged, [model], legend);
  legend.append(el("span", { style: `--c:${SEVERITY_COLORS.warning}` }, "shaded: waiting for the last rank"),
    el("span", { style: `--c:${SEVERITY_COLORS.critical}` }, "shaded: arrived last"));
  renderRankFindings(job);
  timeline.draw();
  window.whyslowReport = { data: D, merged, model, timeline };
  const ms = performance.now() - t0, ds = document.body.dataset;
  ds.ready = "1";
  ds.ranks = job.ranks.map(r => r.rank).join(" ");
  ds.laneGroups = [...new Set(model.lanes.map(l => l.group))].join(" ");
  ds.setupMs = ms.toFixed(1);
  console.log(`whyslow: ranks page ready: ${job.ranks.length} ranks, ${model.n} events embedded, ${ds.kernelRects} kernel rectangles, ` +
    `set up in ${ms.toFixed(1)} ms`);
}
