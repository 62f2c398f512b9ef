// Shared by the view's page and the catalog's page (`toolnorm serve`): each binary puts
// it in the page's one function, before the page's own script.
  /** A duration for people: 340 ms, 2.1 s, 3 min 4 s, 1 h 2 min (as `pretty`). */
  function human(ms) {
    if (ms < 1000) return ms + " ms";
    if (ms < 60000) {
      const tenths = Math.floor((ms + 50) / 100);
      if (tenths >= 600) return "1 min 0 s";
      return Math.floor(tenths / 10) + "." + (tenths % 10) + " s";
    }
    const seconds = Math.floor((ms + 500) / 1000);
    if (seconds < 3600) return Math.floor(seconds / 60) + " min " + (seconds % 60) + " s";
    const minutes = Math.floor((seconds + 30) / 60);
    return Math.floor(minutes / 60) + " h " + (minutes % 60) + " min";
  }
