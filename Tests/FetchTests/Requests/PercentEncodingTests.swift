import Fetch
import Foundation
import Testing

@Suite struct PercentEncodingTests {
    @Test func componentsKeepOnlyUnreservedCharacters() {
        #expect(PercentEncoding.component("AZaz09-._~") == "AZaz09-._~")
        #expect(PercentEncoding.component(" +&=#/?%;,") == "%20%2B%26%3D%23%2F%3F%25%3B%2C")
        #expect(PercentEncoding.component("!$'()*:@[]") == "%21%24%27%28%29%2A%3A%40%5B%5D")
    }

    @Test func componentsEncodeNonASCIIAsUTF8Bytes() {
        #expect(PercentEncoding.component("é") == "%C3%A9")
        #expect(PercentEncoding.component("☕︎") == "%E2%98%95%EF%B8%8E")
        #expect(PercentEncoding.component("日本") == "%E6%97%A5%E6%9C%AC")
    }

    @Test func formComponentsEncodeAsBrowsersDo() {
        #expect(PercentEncoding.formComponent("a b") == "a+b")
        #expect(PercentEncoding.formComponent("a+b") == "a%2Bb")
        #expect(PercentEncoding.formComponent("*-._") == "*-._")
        #expect(PercentEncoding.formComponent("~&=#/\r\n") == "%7E%26%3D%23%2F%0D%0A")
        #expect(PercentEncoding.formComponent("Zoë") == "Zo%C3%AB")
    }

    @Test func formBodiesKeepTheOrderAndRepeatedNames() {
        let fields = [(name: "z", value: "1"), (name: "a", value: "x y"), (name: "z", value: "")]
        #expect(PercentEncoding.form(fields) == "z=1&a=x+y&z=")
    }

    @Test func anEmptyFormIsAnEmptyBody() {
        #expect(PercentEncoding.form([]) == "")
    }
}
