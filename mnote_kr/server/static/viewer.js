// mnote-kr viewer: bring the cited place into view. No data leaves the page.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var target = document.getElementById("hl") || document.querySelector(".para.cited");
  if (!target) { return; }
  var holder = target.closest ? (target.closest(".para") || target) : target;
  target.scrollIntoView({ block: "center", inline: "nearest" });
  if (holder.classList) { holder.classList.add("flash"); }
});
