// The timeline's time axis: offsets from the trace window's start in the unit of the span on the
// screen (a 46 ms view reads "+5 ms", "+10 ms", not "+0.005 s"; a µs view reads µs, a long one
// s), at a round step (1, 2 or 5 × a power of ten) wide enough that no two labels touch.

// Ticks at least this far apart: about a dozen across a 1280 px wide page, few enough to read.
const AXIS_MIN_TICK_PX = 90;
// Free space between the end of one label and the next tick, so neighbours read as two numbers.
const AXIS_LABEL_GAP_PX = 14;
// A label starts this far right of its tick.
const AXIS_LABEL_PAD_PX = 3;
const AXIS_UNITS = [[1e9, "s"], [1e6, "ms"], [1e3, "µs"], [1, "ns"]];

// The largest unit the span holds at least once: 46 ms → ms, 3 s → s, 800 µs → µs.
function axisUnit(spanNs) {
  return AXIS_UNITS.find(([div]) => spanNs >= div) || AXIS_UNITS[AXIS_UNITS.length - 1];
}

// An offset in `unit`, with the digits that tell ticks `step` ns apart: "+2.5 ms", "0 ms"; an
// integer part of five digits or more in groups of three ("+1,000,350 ns": deep zoom far in).
function axisLabel(t, step, unit) {
  const [div, name] = unit;
  const digits = Math.max(0, Math.ceil(-Math.log10(step / div) - 1e-9));
  let [whole, fraction] = (t / div).toFixed(digits).split(".");  // ticks are whole steps: t = 0 is exact
  if (whole.replace("-", "").length >= 5) whole = whole.replace(/\B(?=(\d{3})+$)/g, ",");
  return (t > 0 ? "+" : "") + whole + (fraction ? "." + fraction : "") + " " + name;
}

// The ticks of the view: { step, unit, ticks: [{ t, x, text }] }, each label whole on the screen
// (a tick too near the right edge for its label keeps its grid line, not a cut-off label: text
// "" there). `measure(text)`: its width in px.
function axisTicks(view, measure) {
  const span = view.v1 - view.v0, scale = view.scale, unit = axisUnit(span);
  let step = niceStep(AXIS_MIN_TICK_PX / scale);
  // The widest labels are at the ends of the view (the most digits, the minus sign); a step
  // whose labels would touch gives way to the next round one.
  for (;;) {
    const first = Math.ceil(view.v0 / step) * step, last = Math.floor(view.v1 / step) * step;
    const widest = Math.max(measure(axisLabel(first, step, unit)), measure(axisLabel(last, step, unit)));
    if (widest + AXIS_LABEL_GAP_PX <= step * scale) break;
    step = niceStep(step * 1.5);
  }
  const ticks = [];
  for (let k = Math.ceil(view.v0 / step); k * step <= view.v1; ++k) {
    const t = k * step, x = view.x(t), text = axisLabel(t, step, unit);
    ticks.push({ t, x, text: x + AXIS_LABEL_PAD_PX + measure(text) <= view.w ? text : "" });
  }
  return { step, unit, ticks };
}
