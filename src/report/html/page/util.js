// Shared helpers: time and size formatting (three significant digits, like the text report),
// colours of the event classes and findings, DOM building.

// Event class key (src/report/html/event_class.cpp) → colour.
const CLASS_COLORS = {
  cpu_op: "#4e79a7", annotation: "#9467bd", python: "#9fb37a", host_api: "#4fa3a5", host_wait: "#e15759",
  overhead: "#b8aca6", cpu_other: "#a3a3a3", gpu_annotation: "#c9b6e4", gemm: "#2e9e44", conv: "#1b6e36",
  attention: "#17becf", elementwise: "#e8c02a", reduction: "#f28e2b", communication: "#e377c2",
  triton: "#a36fb5", other_kernel: "#8c9c3c", copy_htod: "#8c564b", copy_dtoh: "#c49c94",
  copy_other: "#a8825f", memset: "#7f7f7f", gpu_sync: "#c7c7c7", other: "#aaaaaa",
};
const SEVERITY_COLORS = { critical: "#c62828", warning: "#e07b00", info: "#1f6fb2" };
// Short names for the data's tuple layouts (SCHEMA comes from src/report/html/page_schema.hpp).
const ST = SCHEMA.STEP, GD = SCHEMA.GPU_DETAIL;

function sig3(x) {
  if (x >= 100) return Math.round(x).toString();
  if (x >= 10) return x.toFixed(1).replace(/\.0$/, "");
  return x.toFixed(2).replace(/\.?0+$/, "");
}

// 83_790_000 → "83.8 ms"; 2944 → "2.94 µs".
function fmtDur(ns) {
  const a = Math.abs(ns), sign = ns < 0 ? "-" : "";
  if (a >= 1e9) return sign + sig3(a / 1e9) + " s";
  if (a >= 1e6) return sign + sig3(a / 1e6) + " ms";
  if (a >= 1e3) return sign + sig3(a / 1e3) + " µs";
  return sign + Math.round(a) + " ns";
}

// An offset from the window's start, three significant digits in its own unit: "+83.8 ms".
// (The timeline's axis labels are timeline_axis.js's: in the unit of the span on screen.)
function fmtOffset(ns) { return (ns > 0 ? "+" : "") + fmtDur(ns); }

// The smallest of 1, 2 or 5 × a power of ten that is at least `raw`: round tick steps.
function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function fmtBytes(b) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (b >= 1024 && i < units.length - 1) { b /= 1024; ++i; }
  return (i === 0 ? b : sig3(b)) + " " + units[i];
}

function fmtCount(n) { return Math.round(n).toLocaleString("en-US"); }

function escapeHtml(s) {
  return String(s).replace(/[&<>"]/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// el("li", {class: "x", onclick: f}, child, "text", …)
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null) node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

const SVG_NS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

// A C++ kernel signature as a short label: "void at::native::vectorized_elementwise_kernel<4, …>(…)"
// → "vectorized_elementwise_kernel". Flat names (cuBLAS, Triton) stay as they are.
function shortLabel(name) {
  let s = name.replace(/^void /, "").replace(/\(anonymous namespace\)::/g, "");
  const cut = s.search(/[<(]/);
  if (cut > 0) s = s.slice(0, cut);
  const ns = s.lastIndexOf("::");
  return ns >= 0 ? s.slice(ns + 2) : s;
}
