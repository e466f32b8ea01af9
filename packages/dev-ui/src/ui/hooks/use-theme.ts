import { useEffect, useState } from "preact/hooks";

export type Theme = "light" | "dark";

/** The colour scheme: the user's choice if they toggled, else the system's preference. */
export function useTheme(): [Theme, () => void] {
  const media = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : undefined;
  const stored = localStorage.getItem("agentkit.theme");
  const [theme, setTheme] = useState<Theme>(
    stored === "dark" || stored === "light" ? stored : media?.matches ? "dark" : "light",
  );

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);

  useEffect(() => {
    if (!media) return;
    const follow = (e: MediaQueryListEvent) => {
      if (!localStorage.getItem("agentkit.theme")) setTheme(e.matches ? "dark" : "light");
    };
    media.addEventListener("change", follow);
    return () => media.removeEventListener("change", follow);
  }, []);

  const toggle = () => {
    const next = theme === "dark" ? "light" : "dark";
    localStorage.setItem("agentkit.theme", next);
    setTheme(next);
  };
  return [theme, toggle];
}
