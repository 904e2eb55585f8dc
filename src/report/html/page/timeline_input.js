// The timeline's input, as in Perfetto: W/S zoom and A/D pan while held, Ctrl+wheel zoom,
// Shift+wheel or drag pan, wheel scrolls the lanes; hover shows the tooltip, click selects (or
// focuses a step, or expands a lane), double-click or F zooms to an event, 0 shows everything,
// Escape clears the selection. It moves the Timeline (timeline.js) through its methods.

function listenTimelineInput(tl) {
  const c = tl.canvas, keys = new Set();
  let lastTick = 0;
  let drag = null;
  const pos = ev => {
    const r = c.getBoundingClientRect();
    return [ev.clientX - r.left, ev.clientY - r.top];
  };
  c.addEventListener("mousedown", ev => {
    const [px, py] = pos(ev);
    drag = { px, py, v0: tl.v0, v1: tl.v1, scrollY: tl.view.scrollY, moved: false };
    tl.root.focus({ preventScroll: true });
  });
  window.addEventListener("mousemove", ev => {
    const [px, py] = pos(ev);
    tl.mouse = ev.target === c || drag ? [px, py] : null;
    if (drag) {
      const dx = px - drag.px, dy = py - drag.py;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        c.classList.add("dragging");
        const span = drag.v1 - drag.v0, shift = dx * span / (tl.view.w - LABEL_W);
        tl.setView(drag.v0 - shift, drag.v1 - shift);
        tl.view.scrollY = drag.scrollY - dy;
        tl.view.clampScroll();
        tl.tip.hidden = true;
      }
    } else if (ev.target === c) {
      tl.showTip(px, py);
    }
  });
  window.addEventListener("mouseup", ev => {
    if (!drag) return;
    c.classList.remove("dragging");
    if (!drag.moved && ev.target === c) {
      const h = tl.hit(drag.px, drag.py);
      if (h && h.step !== undefined) tl.focus(tl.D.steps[h.step][ST.START], tl.D.steps[h.step][ST.START] + tl.D.steps[h.step][ST.DURATION]);
      else if (h && h.lane !== undefined) tl.toggleLane(h.lane);
      else tl.select(h && h.event !== undefined ? h.event : -1);
    }
    drag = null;
  });
  c.addEventListener("mouseleave", () => { tl.tip.hidden = true; tl.mouse = null; });
  c.addEventListener("dblclick", ev => {
    const h = tl.hit(...pos(ev));
    if (h && h.event !== undefined) tl.focus(tl.m.start[h.event], tl.m.end(h.event), h.event);
  });
  c.addEventListener("wheel", ev => {
    const [px] = pos(ev);
    if (ev.ctrlKey || ev.metaKey) {
      ev.preventDefault();
      tl.zoomAt(Math.exp(ev.deltaY * 0.0025), Math.max(px, LABEL_W));
    } else if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
      ev.preventDefault();
      const d = ev.shiftKey && ev.deltaX === 0 ? ev.deltaY : ev.deltaX;
      tl.panBy(d * (tl.v1 - tl.v0) / (tl.view.w - LABEL_W));
    } else {
      const before = tl.view.scrollY;
      tl.view.scrollY += ev.deltaY;
      tl.view.clampScroll();
      if (tl.view.scrollY !== before) { ev.preventDefault(); tl.requestDraw(); }  // else the page scrolls
    }
    tl.tip.hidden = true;
  }, { passive: false });

  // W/S zoom and A/D pan while held, at a steady rate per millisecond like Perfetto.
  const held = ev => !ev.ctrlKey && !ev.metaKey && !ev.altKey && "wasd".includes(ev.key.toLowerCase()) && ev.key.length === 1;
  window.addEventListener("keydown", ev => {
    if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLTextAreaElement || !takesKeys()) return;
    if (held(ev)) {
      ev.preventDefault();
      if (ev.repeat) return;
      const first = keys.size === 0;
      keys.add(ev.key.toLowerCase());
      applyKeys(60);  // a tap moves at once; holding the key keeps moving, frame by frame
      if (first) { lastTick = performance.now(); requestAnimationFrame(tick); }
    } else if (ev.key === "0") {
      tl.reset();
    } else if (ev.key === "Escape") {
      tl.select(-1);
    } else if (ev.key === "f" && tl.selected >= 0) {
      tl.focus(tl.m.start[tl.selected], tl.m.end(tl.selected), tl.selected);
    }
  });
  window.addEventListener("keyup", ev => keys.delete(ev.key.toLowerCase()));
  window.addEventListener("blur", () => keys.clear());
  if (window.ResizeObserver) new ResizeObserver(() => { if (tl.root.clientWidth !== tl.view.w) tl.resize(); }).observe(tl.root);

  // With several timelines on a page, keys go to the one under the mouse or holding the focus.
  function takesKeys() {
    return Timeline.all.length === 1 || tl.mouse !== null || tl.root.contains(document.activeElement);
  }

  function tick() {
    if (keys.size === 0) return;
    // performance.now(), not the frame's timestamp: that can be older than the key press.
    const now = performance.now(), dt = Math.max(0, Math.min(50, now - lastTick));
    lastTick = now;
    applyKeys(dt);
    requestAnimationFrame(tick);
  }

  function applyKeys(dt) {
    const span = tl.v1 - tl.v0;
    const at = tl.mouse && tl.mouse[0] > LABEL_W ? tl.mouse[0] : (LABEL_W + tl.view.w) / 2;
    if (keys.has("w")) tl.zoomAt(Math.exp(-0.004 * dt), at);
    if (keys.has("s")) tl.zoomAt(Math.exp(0.004 * dt), at);
    if (keys.has("a")) tl.panBy(-0.0015 * dt * span);
    if (keys.has("d")) tl.panBy(0.0015 * dt * span);
  }
}
