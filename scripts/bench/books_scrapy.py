"""The spider of examples/books.ts, for Scrapy: the same pages, the same selectors, the same item fields.

Run by scripts/bench/books.ts as `scrapy runspider scripts/bench/books_scrapy.py -a site=URL`.
"""
import scrapy


class Books(scrapy.Spider):
    name = "books"

    def __init__(self, site="https://books.toscrape.com/", **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [site]

    def parse(self, response):
        for href in response.css("article.product_pod h3 a::attr(href)").getall():
            yield response.follow(href, callback=self.parse_book)
        next_page = response.css("li.next a::attr(href)").get()
        if next_page:
            yield response.follow(next_page)

    def parse_book(self, response):
        yield {
            "title": response.css(".product_main h1::text").get(),
            "price": response.css(".product_main .price_color::text").get(),
            "availability": " ".join(t.strip() for t in response.css(".product_main .availability::text").getall()).strip(),
            "upc": response.xpath("//table//tr[th='UPC']/td/text()").get(),
            "url": response.url,
        }
