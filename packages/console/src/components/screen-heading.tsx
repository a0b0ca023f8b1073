import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'

/**
 * A screen's h1. It takes focus when the screen opens, so a keyboard or screen-reader user
 * starts on the new screen rather than on the link that led there.
 */
export function ScreenHeading({ children }: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  return (
    <h1 ref={heading} tabIndex={-1}>
      {children}
    </h1>
  )
}
