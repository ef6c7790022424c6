// Leaderboard form: sorting by rating needs a variant (ratings are kept per variant), so
// the rating choice is offered only while a variant is chosen. The page offers it when
// it was drawn with a variant; choosing "any" here takes it away again (falling back to
// the first key when it was the one chosen), and choosing a variant brings it back in
// its place among the sort keys.

const sort = document.getElementById("sort");
const variant = document.getElementById("variant");
const keys = sort.dataset.keys.split(",");

function ratingOption() {
  return [...sort.options].find((option) => option.value === "rating") ?? null;
}

function follow() {
  const present = ratingOption();
  if (!variant.value) {
    if (present) {
      if (present.selected) sort.value = keys[0];
      present.remove();
    }
    return;
  }
  if (present) return;
  const option = document.createElement("option");
  option.value = "rating";
  option.textContent = "rating";
  const after = keys.slice(keys.indexOf("rating") + 1);
  const next = [...sort.options].find((o) => after.includes(o.value)) ?? null;
  sort.insertBefore(option, next);
}

variant.addEventListener("change", follow);
follow();
