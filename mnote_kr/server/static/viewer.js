// mnote-kr viewer: bring the cited place into view; n / p step to the file's next / previous place.
// No data leaves the page.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var target = document.getElementById("hl") || document.querySelector(".para.cited");
  if (target) {
    var holder = target.closest ? (target.closest(".para") || target) : target;
    target.scrollIntoView({ block: "center", inline: "nearest" });
    if (holder.classList) { holder.classList.add("flash"); }
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var el = event.target;
    var tag = el && el.tagName ? el.tagName.toLowerCase() : "";
    if (tag === "input" || tag === "textarea" || tag === "select" || (el && el.isContentEditable)) { return; }
    var link = null;
    if (event.key === "n") { link = document.getElementById("place-next"); }
    if (event.key === "p") { link = document.getElementById("place-prev"); }
    if (link) { event.preventDefault(); link.click(); }
  });
});
