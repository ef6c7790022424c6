// The read-key flow keeps a page's fragment (#deal=2&move=7 of a replay link): the
// browser never sends it to the server, so the page that asks for a key carries it
// into the key page's link, and the key page into the return target it posts.

const fragment = () => (location.hash.length > 1 ? location.hash : "");

for (const link of document.querySelectorAll("a[data-keep-fragment]")) {
  const url = new URL(link.href);
  const next = url.searchParams.get("next");
  if (next !== null && fragment()) {
    url.searchParams.set("next", next.split("#")[0] + fragment());
    link.href = url.toString();
  }
}

const form = document.getElementById("key-form");
if (form) {
  form.addEventListener("submit", () => {
    const next = form.elements.namedItem("next");
    if (next && fragment() && !next.value.includes("#")) next.value += fragment();
  });
}
